// Control panel pages through app.inject() on both stores: merchant scoping
// of every record, charges and transfers pages, credentials shown once,
// operator merchant administration, reconciliation and the ledger page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { merchantAccount } from '../../src/domain/ledger.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { createUser } from '../../src/flows/panel/users.ts';
import { executeTransfer } from '../../src/flows/transfers/execute.ts';
import { getAccount } from '../../src/store/ledger.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { PanelClient, textOf } from '../helpers/panel.ts';
import { chargeCard } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const PASSWORD = 'correct horse battery staple';

function transfer(id: string, amount: string, receiver = '+254712345678', attribute: Array<{ name: string; value: string }> = []) {
  return { id, sender_phone: '+14155550123', receiver_phone: receiver, amount, service: '1001', receiver_country: 'KE', receiver_currency: 'KES', attribute };
}

async function availableCents(t: TestApp, merchantId: string): Promise<number> {
  return (await t.service.db.read((tx) => getAccount(tx, merchantAccount(merchantId, 'available'))))!.balance_cents;
}

/** Rows of the first table body, each as its cells' text. */
function tableRows(body: string): string[][] {
  const tbody = /<tbody>([\s\S]*?)<\/tbody>/.exec(body);
  if (tbody === null) return [];
  return [...tbody[1]!.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((cell) =>
      cell[1]!
        .replace(/<[^>]+>/g, '')
        .replace(/\s+/g, ' ')
        .trim(),
    ),
  );
}

for (const kind of STORE_KINDS) {
  describe(`panel pages (${kind})`, () => {
    let t: TestApp;
    let shopA: CreatedMerchant;
    let shopB: CreatedMerchant;
    let a: PanelClient;
    let b: PanelClient;
    let operator: PanelClient;
    const refsA: number[] = [];
    let refB = 0;

    before(async () => {
      t = await createTestApp(kind);
      shopA = await t.newMerchant({ fundCents: 100_000, name: 'Shop A' });
      shopB = await t.newMerchant({ fundCents: 100_000, name: 'Shop B' });
      const deps = { db: t.service.db, clock: t.clock };
      await createUser(deps, { email: 'a@example.com', role: 'merchant', merchantId: shopA.merchant_id, password: PASSWORD });
      await createUser(deps, { email: 'b@example.com', role: 'merchant', merchantId: shopB.merchant_id, password: PASSWORD });
      await createUser(deps, { email: 'ops@example.com', role: 'operator', password: PASSWORD });
      refsA.push(await chargeCard(t, shopA, '4111111111111111', 40));
      refsA.push(await chargeCard(t, shopA, '4000000000000002', 12.5));
      refB = await chargeCard(t, shopB, '4111111111111111', 99);
      // The same transfer id for both merchants: ids are unique per merchant only.
      await executeTransfer(t.service, shopA.merchant_id, transfer('7001', '10.00'));
      await executeTransfer(t.service, shopB.merchant_id, transfer('7001', '20.00'));
      await executeTransfer(t.service, shopB.merchant_id, transfer('7002', '30.00'));
      await t.worker.drain();
      a = new PanelClient(t.app);
      b = new PanelClient(t.app);
      operator = new PanelClient(t.app);
      assert.equal((await a.signIn('a@example.com', PASSWORD)).status, 303);
      assert.equal((await b.signIn('b@example.com', PASSWORD)).status, 303);
      assert.equal((await operator.signIn('ops@example.com', PASSWORD)).status, 303);
    });
    after(() => t.close());

    it('shows balances and today in the volume chart', async () => {
      const page = await a.get('/dashboard/overview');
      assert.equal(page.status, 200);
      // 1000.00 funded + 40.00 approved - 10.00 paid out.
      assert.match(page.body, /<p class="tile-label">Balance<\/p><p class="tile-value">1,030.00 USD<\/p>/);
      assert.match(page.body, /<p class="tile-label">In flight<\/p><p class="tile-value">0.00 /);
      const today = new Date(t.clock.nowMs()).toISOString().slice(0, 10);
      assert.match(page.body, new RegExp(`<tr><th scope="row">${today}</th><td class="num">40.00 USD</td><td class="num">10.00 USD</td></tr>`));
      assert.match(page.body, /<desc id="chart-desc">Card payins total 40.00 USD and transfers total 10.00 USD over 30 days.<\/desc>/);
    });

    it("lists only the merchant's own charges, filters them by status, and opens one", async () => {
      const list = await a.get('/dashboard/charges');
      assert.equal(list.status, 200);
      assert.deepEqual(
        tableRows(list.body).map((r) => [r[0], r[1], r[2]]),
        [
          [String(refsA[1]), 'declined', '12.50 USD'],
          [String(refsA[0]), 'captured', '40.00 USD'],
        ],
      );
      const declined = await a.get('/dashboard/charges?status=declined');
      assert.deepEqual(
        tableRows(declined.body).map((r) => r[0]),
        [String(refsA[1])],
      );
      const bad = await a.get('/dashboard/charges?status=stolen&from=yesterday');
      assert.equal(bad.status, 400);
      assert.equal(textOf(bad.body, 'notice'), 'Filter ignored: unknown status "stolen"; the From date is not a date.');
      const detail = await a.get(`/dashboard/charges/${refsA[0]}`);
      assert.equal(detail.status, 200);
      assert.match(detail.body, /<dt>Amount<\/dt><dd>40.00 USD<\/dd>/);
      assert.doesNotMatch(detail.body, /4111111111111111|nonce-/);
      const found = await a.get(`/dashboard/charges/find?ref=${refsA[0]}`);
      assert.equal(found.location, `/dashboard/charges/${refsA[0]}`);
    });

    it('pages through charges newest first, 25 at a time', async () => {
      const shopD = await t.newMerchant({ name: 'Shop D' });
      await createUser({ db: t.service.db, clock: t.clock }, { email: 'd@example.com', role: 'merchant', merchantId: shopD.merchant_id, password: PASSWORD });
      const refs: number[] = [];
      for (let i = 1; i <= 27; i++) refs.push(await chargeCard(t, shopD, '4111111111111111', i));
      const d = new PanelClient(t.app);
      await d.signIn('d@example.com', PASSWORD);
      const first = await d.get('/dashboard/charges?status=captured');
      assert.deepEqual(
        tableRows(first.body).map((r) => Number(r[0])),
        refs.slice(2).reverse(),
      );
      const older = /<a class="button" href="([^"]+)">Older<\/a>/.exec(first.body)![1]!;
      assert.equal(older, `/dashboard/charges?status=captured&amp;before=${refs[2]}`);
      const second = await d.get(older.replace('&amp;', '&'));
      assert.deepEqual(
        tableRows(second.body).map((r) => Number(r[0])),
        [refs[1], refs[0]],
      );
      assert.doesNotMatch(second.body, />Older</);
      // Counts, and Newer back to the first page with the filters kept.
      assert.equal(textOf(first.body, 'pager-count'), 'Showing 1-25 of 27');
      assert.doesNotMatch(first.body, />Newer</);
      assert.equal(textOf(second.body, 'pager-count'), 'Showing 26-27 of 27');
      const newer = /<a class="button" href="([^"]+)">Newer<\/a>/.exec(second.body)![1]!;
      assert.equal(newer, `/dashboard/charges?status=captured&amp;after=${refs[1]}`);
      const back = await d.get(newer.replace('&amp;', '&'));
      assert.deepEqual(
        tableRows(back.body).map((r) => Number(r[0])),
        refs.slice(2).reverse(),
      );
      assert.equal(textOf(back.body, 'pager-count'), 'Showing 1-25 of 27');
      assert.match(back.body, />Older</);
      // A page in the middle: Newer from the oldest row shows the 25 just above it.
      const middle = await d.get(`/dashboard/charges?after=${refs[0]}`);
      assert.deepEqual(
        tableRows(middle.body).map((r) => Number(r[0])),
        refs.slice(1, 26).reverse(),
      );
      assert.equal(textOf(middle.body, 'pager-count'), 'Showing 2-26 of 27');
      assert.match(middle.body, />Newer</);
      assert.match(middle.body, />Older</);
    });

    it("reads another merchant's charge or transfer as unknown", async () => {
      const charge = await a.get(`/dashboard/charges/${refB}`);
      assert.equal(charge.status, 404);
      assert.equal(textOf(charge.body, 'notice'), `No charge with reference number ${refB} was found.`);
      const other = await a.get('/dashboard/transfers/7002');
      assert.equal(other.status, 404);
      assert.equal(textOf(other.body, 'notice'), 'No transfer with id 7002 was found.');
      const find = await a.get('/dashboard/transfers/find?id=7002');
      assert.equal(find.status, 404);
      assert.equal(textOf(find.body, 'notice'), 'No transfer with id 7002 was found for your merchant.');
      // The shared id 7001 opens each merchant's own transfer.
      assert.match((await a.get('/dashboard/transfers/7001')).body, /<dt>Amount<\/dt><dd>10.00 USD<\/dd>/);
      assert.match((await b.get('/dashboard/transfers/7001')).body, /<dt>Amount<\/dt><dd>20.00 USD<\/dd>/);
      // The network's references read as the API shows them.
      const status = (await t.app.inject({ url: '/api/status/7001', headers: { 'api-key': shopA.transfer_api_key } })).json() as {
        status: { result: { trans: string | null } };
      };
      const { trans } = status.status.result;
      assert.ok(trans !== null);
      const detail = (await a.get('/dashboard/transfers/7001')).body;
      assert.ok(detail.includes(`<dt>trans</dt><dd>${trans}</dd>`), 'the panel shows trans as the API does');
      assert.deepEqual(
        tableRows((await a.get('/dashboard/transfers')).body).map((r) => r[0]),
        ['7001'],
      );
    });

    it('finds a transfer by id and shows its state history', async () => {
      const find = await b.get('/dashboard/transfers/find?id=7002');
      assert.equal(find.status, 303);
      assert.equal(find.location, '/dashboard/transfers/7002');
      const page = await b.get('/dashboard/transfers/7002');
      assert.equal(page.status, 200);
      assert.match(page.body, /<dt>Receiver gets<\/dt><dd>3,877.50 KES at 129.25<\/dd>/);
      assert.match(page.body, /<span class="badge badge-ok">Success<\/span> <span class="muted">state 60, substate 0, final<\/span>/);
      const history = [...page.body.matchAll(/<span class="muted">(-?\d+\/\d+)<\/span>/g)].map((m) => m[1]);
      assert.equal(history[0], '0/0');
      assert.equal(history.at(-1), '60/0');
      assert.ok(history.includes('40/1'));
      const success = await b.get('/dashboard/transfers?state=60');
      assert.deepEqual(
        tableRows(success.body).map((r) => r[0]),
        ['7002', '7001'],
      );
      const failed = await b.get('/dashboard/transfers?state=80');
      assert.equal(textOf(failed.body, 'empty-title'), 'No transfers in this state');
    });

    it("looks up a receiver's KYC as the API reports it", async () => {
      const limited = await a.get('/dashboard/kyc?account=254712340002');
      assert.equal(limited.status, 200);
      assert.match(limited.body, /<dt>Limit per transfer<\/dt><dd>100.00 USD<\/dd>/);
      assert.match(limited.body, /not verified/);
      const unknown = await a.get('/dashboard/kyc?account=254712340003');
      assert.equal(unknown.status, 404);
      const malformed = await a.get('/dashboard/kyc?account=abc');
      assert.equal(malformed.status, 400);
      assert.equal(textOf(malformed.body, 'notice'), 'account must be the receiver phone in E.164 digits without +, e.g. 254712345678 (invalid_phone_number).');
    });

    it('creates a source whose credentials are shown once and work', async () => {
      await a.get('/dashboard/credentials');
      const created = await a.post('/dashboard/credentials/sources', { name: 'Web <shop>' });
      assert.equal(created.status, 200);
      const value = (id: string) => new RegExp(`id="${id}" class="mono" readonly value="([^"]+)"`).exec(created.body)?.[1];
      const source = {
        id: /Source (src_[0-9A-Za-z]+) created\./.exec(created.body)![1]!,
        dialect: 'spec' as const,
        api_key: value('api-key')!,
        pin: value('pin')!,
        tokenization_token: value('tokenization-token')!,
      };
      assert.match(source.api_key, /^sbx_sk_/);
      assert.match(source.pin, /^[0-9]{8}$/);
      assert.match(source.tokenization_token, /^sbx_pt_/);
      const merchant = { ...shopA, source };
      await chargeCard(t, merchant, '4111111111111111', 1);
      const list = await a.get('/dashboard/credentials');
      assert.match(list.body, /<th scope="row">Web &lt;shop&gt;<\/th>/);
      for (const secret of [source.api_key, source.pin, source.tokenization_token]) assert.ok(!list.body.includes(secret));
    });

    it("rotates and revokes only the merchant's own sources", async () => {
      await a.get('/dashboard/credentials');
      const foreign = await a.post(`/dashboard/credentials/sources/${shopB.source.id}/rotate`);
      assert.equal(foreign.status, 404);
      assert.equal((await a.post(`/dashboard/credentials/sources/${shopB.source.id}/revoke`)).status, 404);
      const stillB = await t.service.db.read((tx) => tx.all('SELECT id FROM credentials WHERE source_id = ? AND revoked_at_ms IS NOT NULL', [shopB.source.id]));
      assert.equal(stillB.length, 0);

      const rotated = await a.post(`/dashboard/credentials/sources/${shopA.source.id}/rotate`);
      assert.equal(rotated.status, 200);
      const nonce = await t.app.inject({
        method: 'POST',
        url: '/api/v2/tokens',
        headers: { authorization: `Bearer ${shopA.source.tokenization_token}`, 'content-type': 'application/json' },
        payload: { card_number: '4111111111111111', expiry_month: 12, expiry_year: 2035, cvv2: '123' },
      });
      assert.equal(nonce.statusCode, 401);
      await a.get('/dashboard/credentials');
      const revoked = await a.post(`/dashboard/credentials/sources/${shopA.source.id}/revoke`);
      assert.equal(revoked.status, 303);
      assert.equal(revoked.location, '/dashboard/credentials?notice=revoked');
      const after = await a.get('/dashboard/credentials?notice=revoked');
      assert.equal(textOf(after.body, 'notice'), 'Source revoked. Its credentials no longer work.');
    });

    it('rotates the transfer API key: the new one is shown once, the old one fails', async () => {
      const balance = (key: string) => t.app.inject({ url: '/api/agent_balance', headers: { 'api-key': key } });
      assert.equal((await balance(shopB.transfer_api_key)).statusCode, 200);
      await b.get('/dashboard/credentials');
      const rotated = await b.post('/dashboard/credentials/transfer-key/rotate');
      assert.equal(rotated.status, 200);
      const key = /id="transfer-api-key" class="mono" readonly value="([^"]+)"/.exec(rotated.body)![1]!;
      assert.equal((await balance(shopB.transfer_api_key)).statusCode, 401);
      assert.equal((await balance(key)).statusCode, 200);
      assert.ok(!(await b.get('/dashboard/credentials')).body.includes(key));
    });

    it('lets the operator create, fund and configure a merchant', async () => {
      await operator.get('/dashboard/operator/merchants');
      const created = await operator.post('/dashboard/operator/merchants', { name: 'Shop C' });
      assert.equal(created.status, 200);
      const merchantId = /id="merchant-id" class="mono" readonly value="(mer_[0-9A-Za-z]+)"/.exec(created.body)![1]!;
      assert.match(created.body, /id="transfer-api-key" class="mono" readonly value="sbx_tk_/);
      const base = `/dashboard/operator/merchants/${merchantId}`;
      await operator.get(base);
      const funded = await operator.post(`${base}/fund`, { amount: '250.00' });
      assert.equal(funded.location, `${base}?notice=funded`);
      assert.equal(await availableCents(t, merchantId), 25_000);
      const bad = await operator.post(`${base}/fund`, { amount: '1.234' });
      assert.equal(bad.status, 400);
      assert.equal(textOf(bad.body, 'notice'), 'The amount must be a positive decimal number of dollars with at most 2 decimals, for example 250.00.');
      assert.equal(await availableCents(t, merchantId), 25_000);
      assert.equal((await operator.post(`${base}/overdraft`, { amount: '50' })).location, `${base}?notice=overdraft`);
      assert.equal((await operator.post(`${base}/link-required`, { on: '1' })).location, `${base}?notice=link_on`);
      const page = await operator.get(`${base}?notice=link_on`);
      assert.match(page.body, /<dt>Overdraft<\/dt><dd>50.00 USD<\/dd>/);
      assert.match(page.body, /<dt>Available<\/dt><dd>300.00 USD<\/dd>/);
      assert.match(page.body, /<dt>Payouts must link<\/dt><dd><span class="badge badge-wait">on<\/span><\/dd>/);
      const search = await operator.get('/dashboard/operator/merchants?q=Shop%20C');
      assert.deepEqual(
        tableRows(search.body).map((r) => [r[0], r[2], r[3]]),
        [['Shop C', '250.00 USD', '50.00 USD']],
      );
      assert.equal((await operator.get('/dashboard/operator/merchants/mer_unknown')).status, 404);
    });

    it('lets the operator link a waiting transfer to a charge or cancel one, and the ledger stays right', async () => {
      await operator.get(`/dashboard/operator/merchants/${shopA.merchant_id}`);
      await operator.post(`/dashboard/operator/merchants/${shopA.merchant_id}/link-required`, { on: '1' });
      // Charges older than the automatic reconciliation window are left to the operator.
      t.clock.advance(25 * 60 * 60 * 1000);
      // Sessions last 12 hours, so both users sign in again.
      assert.equal((await operator.signIn('ops@example.com', PASSWORD)).status, 303);
      assert.equal((await a.signIn('a@example.com', PASSWORD)).status, 303);
      await executeTransfer(t.service, shopA.merchant_id, transfer('8001', '15.00'));
      await executeTransfer(t.service, shopA.merchant_id, transfer('8002', '5.00'));
      await t.worker.drain();
      const queue = await operator.get('/dashboard/operator/reconciliation');
      assert.equal(queue.status, 200);
      assert.deepEqual(
        [...queue.body.matchAll(/<h2 class="queue-title">Transfer <code>(\d+)<\/code> · ([\d.,]+) USD<\/h2>/g)].map((m) => [m[1], m[2]]),
        [
          ['8001', '15.00'],
          ['8002', '5.00'],
        ],
      );
      const before = await availableCents(t, shopA.merchant_id);
      const wrong = await operator.post('/dashboard/operator/reconciliation/link', { merchant: shopA.merchant_id, transfer: '8001', charge: String(refsA[1]) });
      assert.equal(wrong.status, 400);
      const linked = await operator.post('/dashboard/operator/reconciliation/link', {
        merchant: shopA.merchant_id,
        transfer: '8001',
        charge: String(refsA[0]),
      });
      assert.equal(linked.location, '/dashboard/operator/reconciliation?notice=linked');
      await operator.get('/dashboard/operator/reconciliation');
      const cancelled = await operator.post('/dashboard/operator/reconciliation/cancel', { merchant: shopA.merchant_id, transfer: '8002' });
      assert.equal(cancelled.location, '/dashboard/operator/reconciliation?notice=cancelled');
      assert.equal(await availableCents(t, shopA.merchant_id), before + 500);
      const empty = await operator.get('/dashboard/operator/reconciliation?notice=cancelled');
      assert.equal(textOf(empty.body, 'empty-title'), 'Nothing waits for reconciliation');

      await t.worker.drain();
      const detail = await a.get('/dashboard/transfers/8001');
      assert.match(detail.body, new RegExp(`<dt>Charge</dt><dd><a href="/dashboard/charges/${refsA[0]}">${refsA[0]}</a>`));
      assert.match(detail.body, /<dt>Amount linked<\/dt><dd>15.00 USD<\/dd>/);
      const chargePage = await a.get(`/dashboard/charges/${refsA[0]}`);
      assert.deepEqual(
        tableRows(chargePage.body.slice(chargePage.body.indexOf('Linked transfers'))).map((r) => [r[0], r[2], r[3]]),
        [['8001', '15.00 USD', 'operator']],
      );
      assert.match(
        (await a.get('/dashboard/transfers/8002')).body,
        /<span class="badge badge-bad">Error<\/span> <span class="muted">state 80, substate 7, final<\/span>/,
      );

      const ledger = await operator.get('/dashboard/operator/ledger');
      assert.equal(ledger.status, 200);
      assert.match(ledger.body, /<strong>Ledger OK.<\/strong>/);
      assert.equal((await verifyLedger(t.service.db)).ok, true);
    });
  });
}
