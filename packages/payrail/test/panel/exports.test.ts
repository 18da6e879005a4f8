// CSV exports of the charge and transfer lists, the transfer list's date
// and corridor filters, and the operator's read-only view of any merchant's
// lists, through app.inject() on both stores: the file's header, content and
// escaping, the filters of the page applied to it, merchant scoping, a
// viewer allowed to export (it is a read), no actions for the operator.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DAY_MS } from '../../src/domain/clock.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { createUser } from '../../src/flows/panel/users.ts';
import { executeTransfer } from '../../src/flows/transfers/execute.ts';
import { csvDocument, csvField } from '../../src/web/csv.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { decodeEntities, PanelClient, textOf } from '../helpers/panel.ts';
import { chargeCard } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const PASSWORD = 'correct horse battery staple';

const KE = { service: '1001', receiver_country: 'KE', receiver_currency: 'KES', receiver_phone: '+254712345678', attribute: [] };
const PH = {
  service: '1003',
  receiver_country: 'PH',
  receiver_currency: 'PHP',
  receiver_phone: '+639171234567',
  attribute: [{ name: 'receiverName', value: 'Jose Rizal' }],
};

function transfer(id: string, amount: string, corridor: typeof KE | typeof PH) {
  return { id, sender_phone: '+14155550123', amount, ...corridor };
}

/** A CSV body as lines of raw text (the exports end every line with CRLF). */
function lines(body: string): string[] {
  assert.ok(body.endsWith('\r\n'));
  return body.slice(0, -2).split('\r\n');
}

/** Rows of the first table body: the text of each row's first cell. */
function firstCells(body: string): string[] {
  const tbody = /<tbody>([\s\S]*?)<\/tbody>/.exec(body);
  if (tbody === null) return [];
  return [...tbody[1]!.matchAll(/<tr>\s*<th scope="row">([\s\S]*?)<\/th>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, '').trim());
}

describe('csv fields', () => {
  it('quotes per RFC 4180 and neutralises formulas', () => {
    assert.equal(csvField('plain'), 'plain');
    assert.equal(csvField(12), '12');
    assert.equal(csvField(null), '');
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('two\nlines'), '"two\nlines"');
    assert.equal(csvField('=HYPERLINK("x")'), `"'=HYPERLINK(""x"")"`);
    assert.equal(csvField('+254712345678'), "'+254712345678");
    assert.equal(csvField('-1'), "'-1");
    assert.equal(csvField('@SUM(A1)'), "'@SUM(A1)");
  });

  it('ends a cut export with a line saying so', () => {
    assert.equal(csvDocument(['a', 'b'], [[1, 'x']], null), 'a,b\r\n1,x\r\n');
    assert.equal(csvDocument(['a'], [[1]], 10_000), 'a\r\n1\r\nExport cut at 10000 rows: narrow the filters to export the rest.\r\n');
  });
});

for (const kind of STORE_KINDS) {
  describe(`panel exports and transfer filters (${kind})`, () => {
    let t: TestApp;
    let shopA: CreatedMerchant;
    let shopB: CreatedMerchant;
    let a: PanelClient;
    let b: PanelClient;
    let viewer: PanelClient;
    let operator: PanelClient;
    let approvedRef = 0;
    let declinedRef = 0;
    let refB = 0;
    let day1 = '';
    let day2 = '';

    before(async () => {
      t = await createTestApp(kind);
      shopA = await t.newMerchant({ fundCents: 100_000, name: 'Shop A' });
      shopB = await t.newMerchant({ fundCents: 100_000, name: 'Shop B' });
      const deps = { db: t.service.db, clock: t.clock };
      await createUser(deps, { email: 'a@example.com', role: 'merchant', merchantId: shopA.merchant_id, password: PASSWORD });
      await createUser(deps, { email: 'v@example.com', role: 'merchant', merchantId: shopA.merchant_id, password: PASSWORD });
      await createUser(deps, { email: 'b@example.com', role: 'merchant', merchantId: shopB.merchant_id, password: PASSWORD });
      await createUser(deps, { email: 'ops@example.com', role: 'operator', password: PASSWORD });
      await t.service.db.write((tx) => tx.run("UPDATE panel_users SET merchant_role = 'viewer' WHERE email = ?", ['v@example.com']));
      day1 = new Date(t.clock.nowMs()).toISOString().slice(0, 10);
      approvedRef = await chargeCard(t, shopA, '4111111111111111', 1234.5);
      declinedRef = await chargeCard(t, shopA, '4000000000000002', 12.5);
      refB = await chargeCard(t, shopB, '4111111111111111', 99);
      await executeTransfer(t.service, shopA.merchant_id, transfer('8001', '10.00', KE));
      t.clock.advance(2 * DAY_MS);
      day2 = new Date(t.clock.nowMs()).toISOString().slice(0, 10);
      await executeTransfer(t.service, shopA.merchant_id, transfer('8002', '25.00', PH));
      await executeTransfer(t.service, shopB.merchant_id, transfer('8003', '20.00', KE));
      await t.worker.drain();
      a = new PanelClient(t.app);
      b = new PanelClient(t.app);
      viewer = new PanelClient(t.app);
      operator = new PanelClient(t.app);
      assert.equal((await operator.signIn('ops@example.com', PASSWORD)).status, 303);
      assert.equal((await a.signIn('a@example.com', PASSWORD)).status, 303);
      assert.equal((await b.signIn('b@example.com', PASSWORD)).status, 303);
      assert.equal((await viewer.signIn('v@example.com', PASSWORD)).status, 303);
    });
    after(() => t.close());

    it('exports the charges as CSV with a header, decimal amounts and a file name', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/dashboard/charges/export', remoteAddress: a.address, headers: { cookie: cookieOf(a) } });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'text/csv; charset=utf-8');
      assert.match(String(response.headers['content-disposition']), /^attachment; filename="charges-\d{4}-\d{2}-\d{2}\.csv"$/);
      const rows = lines(response.body);
      assert.equal(
        rows[0],
        'reference,kind,refund_of,status,amount,currency,captured,refunded,linked,card_type,last4,created_at,payment_type,account_last4,ach_status,return_code,return_reason',
      );
      assert.equal(rows.length, 3);
      assert.match(rows[1]!, new RegExp(`^${declinedRef},charge,,declined,12.50,USD,`));
      assert.match(rows[2]!, new RegExp(`^${approvedRef},charge,,(approved|captured|settled),1234.50,USD,`));
      assert.ok(!response.body.includes(String(refB)));
    });

    it('applies the filters of the page to the export and refuses bad ones', async () => {
      const declined = lines((await a.get('/dashboard/charges/export?status=declined')).body);
      assert.equal(declined.length, 2);
      assert.ok(declined[1]!.startsWith(`${declinedRef},`));
      const page = await a.get('/dashboard/charges?status=declined');
      assert.match(page.body, /href="\/dashboard\/charges\/export\?status=declined" download>Export CSV<\/a>/);
      const bad = await a.get('/dashboard/charges/export?status=stolen');
      assert.equal(bad.status, 400);
      assert.match(decodeEntities(bad.body), /Nothing exported: unknown status "stolen"/);
    });

    it("exports transfers, neutralising cells a spreadsheet would run, and never another merchant's", async () => {
      const mine = lines((await a.get('/dashboard/transfers/export')).body);
      assert.equal(mine[0], 'id,state,substate,state_name,amount,currency,receiver_phone,service,receiver_currency,created_at');
      assert.deepEqual(
        mine.slice(1).map((l) => l.split(',').slice(0, 1).concat(l.split(',').slice(4, 9))),
        [
          ['8002', '25.00', 'USD', "'+639171234567", '1003', 'PHP'],
          ['8001', '10.00', 'USD', "'+254712345678", '1001', 'KES'],
        ],
      );
      const theirs = lines((await b.get('/dashboard/transfers/export')).body);
      assert.deepEqual(
        theirs.slice(1).map((l) => l.split(',')[0]),
        ['8003'],
      );
      assert.ok(!(await b.get('/dashboard/charges/export')).body.includes(`${approvedRef},`));
    });

    it('lets a viewer export (it is a read)', async () => {
      const charges = await viewer.get('/dashboard/charges/export');
      assert.equal(charges.status, 200);
      assert.equal(lines(charges.body).length, 3);
      assert.equal((await viewer.get('/dashboard/transfers/export')).status, 200);
    });

    it('filters transfers by creation date and corridor, in the page, its links and the export', async () => {
      const all = await a.get('/dashboard/transfers');
      assert.deepEqual(firstCells(all.body), ['8002', '8001']);
      assert.equal(textOf(all.body, 'pager-count'), 'Showing 1-2 of 2');
      const first = await a.get(`/dashboard/transfers?from=${day1}&to=${day1}`);
      assert.equal(first.status, 200);
      assert.deepEqual(firstCells(first.body), ['8001']);
      assert.deepEqual(firstCells((await a.get(`/dashboard/transfers?from=${day2}`)).body), ['8002']);
      const ph = await a.get('/dashboard/transfers?service=1003');
      assert.deepEqual(firstCells(ph.body), ['8002']);
      assert.match(ph.body, /<option value="1003" selected>/);
      assert.equal(textOf(ph.body, 'pager-count'), 'Showing 1-1 of 1');
      assert.match(ph.body, /href="\/dashboard\/transfers\/export\?service=1003" download>Export CSV/);
      assert.match(decodeEntities(ph.body), /href="\/dashboard\/transfers\?service=1003&state=60"/);
      const exported = lines((await a.get(`/dashboard/transfers/export?service=1001&from=${day1}&to=${day1}`)).body);
      assert.deepEqual(
        exported.slice(1).map((l) => l.split(',')[0]),
        ['8001'],
      );
      assert.deepEqual(firstCells((await a.get(`/dashboard/transfers?service=1001&from=${day2}`)).body), []);
    });

    it('says what is wrong with a transfer filter, never a 500', async () => {
      const bad = await a.get('/dashboard/transfers?from=yesterday&service=9999&state=nope');
      assert.equal(bad.status, 400);
      assert.equal(
        decodeEntities(textOf(bad.body, 'notice') ?? ''),
        'Filter ignored: unknown state "nope"; the From date is not a date; unknown corridor "9999".',
      );
      assert.deepEqual(firstCells(bad.body), ['8002', '8001']);
      const backwards = await a.get(`/dashboard/transfers?from=${day2}&to=${day1}`);
      assert.equal(backwards.status, 400);
      assert.match(textOf(backwards.body, 'notice') ?? '', /the To date is before the From date/);
      const refused = await a.get('/dashboard/transfers/export?service=9999');
      assert.equal(refused.status, 400);
      assert.doesNotMatch(refused.body, /^id,/);
    });

    it("gives the operator read-only access to any merchant's charges and transfers", async () => {
      const base = `/dashboard/operator/merchants/${shopA.merchant_id}`;
      const detail = await operator.get(base);
      assert.equal(detail.status, 200);
      assert.match(detail.body, new RegExp(`<a href="${base}/charges">Charges</a>`));
      assert.match(detail.body, new RegExp(`<a href="${base}/transfers">Transfers</a>`));
      const charges = await operator.get(`${base}/charges`);
      assert.equal(charges.status, 200);
      assert.deepEqual(firstCells(charges.body), [String(declinedRef), String(approvedRef)]);
      assert.match(charges.body, new RegExp(`href="${base}/charges/${approvedRef}"`));
      assert.match(charges.body, new RegExp(`href="${base}/charges/export" download>Export CSV`));
      const one = await operator.get(`${base}/charges/${approvedRef}`);
      assert.equal(one.status, 200);
      assert.doesNotMatch(one.body, /method="post"[^>]*action="[^"]*\/(capture|void|refund)"/);
      assert.doesNotMatch(one.body, />(Capture|Void|Refund)…</);
      // Another merchant's charge under this merchant's page reads as unknown.
      assert.equal((await operator.get(`${base}/charges/${refB}`)).status, 404);
      const transfers = await operator.get(`${base}/transfers?service=1003`);
      assert.deepEqual(firstCells(transfers.body), ['8002']);
      assert.equal((await operator.get(`${base}/transfers/8001`)).status, 200);
      assert.equal(lines((await operator.get(`${base}/transfers/export`)).body).length, 3);
      assert.equal((await operator.get('/dashboard/operator/merchants/mer_nosuchmerchant/charges')).status, 404);
    });

    it("keeps a merchant user from another merchant's lists, on both paths", async () => {
      const base = `/dashboard/operator/merchants/${shopA.merchant_id}`;
      assert.equal((await b.get(`${base}/charges`)).status, 403);
      assert.equal((await b.get(`${base}/transfers/export`)).status, 403);
      assert.equal((await b.get(`/dashboard/charges/${approvedRef}`)).status, 404);
      assert.equal((await b.get('/dashboard/transfers/8001')).status, 404);
    });
  });
}

function cookieOf(client: PanelClient): string {
  return [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
}
