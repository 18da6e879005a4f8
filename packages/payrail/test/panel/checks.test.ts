// Checks in the control panel (behaviour section 17), on both stores: they
// sit in the charge list beside cards ("Check ••••6789", never more of the
// account number), show the status of their ACH entry, filter by payment
// type and status, open on a page with the bank account, the entry's
// timeline and a return's code and reason; the void and refund a check
// allows are the only ones offered, refused with the page's reason while the
// panel cannot act on checks; the CSV export carries the check columns.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DAY_MS, ManualClock } from '../../src/domain/clock.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { createUser } from '../../src/flows/panel/users.ts';
import { advanceAchClock } from '../../src/store/sandbox-ach-clocks.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { chargeCard, snapshot } from '../helpers/lifecycle.ts';
import { decodeEntities, PanelClient, textOf } from '../helpers/panel.ts';
import { checkAt, type CheckPath, checkStoreOf } from '../helpers/panel-checks.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const PASSWORD = 'correct horse battery staple';
const ACCOUNT = '000123456789';

/** Each data row of the list's first table: reference, status text, "paid with" text. */
function listRows(body: string): Array<{ ref: string; status: string; paidWith: string }> {
  const tbody = /<tbody>([\s\S]*?)<\/tbody>/.exec(body);
  if (tbody === null) return [];
  return [...tbody[1]!.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => {
    const cells = [...m[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) =>
      decodeEntities(
        c[1]!
          .replace(/<[^>]+>/g, ' ')
          .replace(/\s+/g, ' ')
          .trim(),
      ),
    );
    return { ref: cells[0]!.split(' ')[0]!, status: cells[1]!, paidWith: cells[3]! };
  });
}

/** The void or refund form a check's page offers, pressable. */
function assertOffered(body: string, action: 'void' | 'refund'): void {
  const label = action === 'void' ? 'Void…' : 'Refund…';
  assert.ok(body.includes(`<button type="submit" class="button danger">${label}</button>`), `${action} offered`);
  assert.ok(!body.includes(`id="${action}-blocked"`));
}

function csvLines(body: string): string[] {
  assert.ok(body.endsWith('\r\n'));
  return body.slice(0, -2).split('\r\n');
}

for (const kind of STORE_KINDS) {
  describe(`panel: checks (${kind})`, () => {
    let t: TestApp;
    let shop: CreatedMerchant;
    let other: CreatedMerchant;
    let panel: PanelClient;
    let otherPanel: PanelClient;
    let operator: PanelClient;
    const refs = {} as Record<CheckPath, number>;
    let cardRef = 0;
    let otherCheck = 0;
    /** A check settled more than five business days ago: refundable by the rules. */
    let oldSettled = 0;
    /** A refund (an ACH credit) of 4.00 of oldSettled, accepted by the network. */
    let refund = 0;

    before(async () => {
      t = await createTestApp(kind);
      shop = await t.newMerchant({ name: 'Check shop' });
      other = await t.newMerchant({ name: 'Other shop' });
      const deps = { db: t.service.db, clock: t.clock };
      await createUser(deps, { email: 'shop@example.com', role: 'merchant', merchantId: shop.merchant_id, password: PASSWORD });
      await createUser(deps, { email: 'other@example.com', role: 'merchant', merchantId: other.merchant_id, password: PASSWORD });
      await createUser(deps, { email: 'ops@example.com', role: 'operator', password: PASSWORD });
      oldSettled = await checkAt(checkStoreOf(t), shop, 'settled', { amountCents: 1_000, accountNumber: ACCOUNT });
      // Five business days are at most nine calendar days (from a Saturday).
      t.clock.advance(10 * DAY_MS);
      cardRef = await chargeCard(t, shop, { amount: 12 });
      for (const path of ['submitting', 'pending', 'originated', 'settled', 'returned_settled', 'returned_pending', 'voided', 'declined'] as const) {
        refs[path] = await checkAt(checkStoreOf(t), shop, path, { amountCents: 4_250, accountNumber: ACCOUNT });
      }
      refund = await checkAt(checkStoreOf(t), shop, 'pending', { amountCents: 400, accountNumber: ACCOUNT, parentPk: oldSettled });
      otherCheck = await checkAt(checkStoreOf(t), other, 'pending', { amountCents: 100, accountNumber: '99998888' });
      panel = new PanelClient(t.app);
      otherPanel = new PanelClient(t.app);
      operator = new PanelClient(t.app);
      assert.equal((await panel.signIn('shop@example.com', PASSWORD)).status, 303);
      assert.equal((await otherPanel.signIn('other@example.com', PASSWORD)).status, 303);
      assert.equal((await operator.signIn('ops@example.com', PASSWORD)).status, 303);
    });
    after(() => t.close());

    it('starts from checks whose money moved as their entries did', async () => {
      const balances = await t.service.db.read((tx) =>
        tx.all<{ kind: string; balance_cents: number | string }>(
          "SELECT kind, balance_cents FROM accounts WHERE merchant_id = ? AND kind IN ('ach_pending', 'ach_returns_due', 'available') ORDER BY kind",
          [shop.merchant_id],
        ),
      );
      // Pending and originated checks wait in ach_pending; the two settled ones and the card's capture are available, less the refund held;
      // the returned, voided, declined and submitting ones moved nothing that is still held.
      assert.deepEqual(
        balances.map((b) => [b.kind, Number(b.balance_cents)]),
        [
          ['ach_pending', 4_250 + 4_250],
          ['ach_returns_due', 0],
          ['available', 1_200 + 1_000 + 4_250 - 400],
        ],
      );
    });

    it('lists checks beside cards with the status of their ACH entry and the account last four only', async () => {
      const page = await panel.get('/dashboard/charges');
      assert.equal(page.status, 200);
      const rows = new Map(listRows(page.body).map((r) => [Number(r.ref), r]));
      const expected: Record<CheckPath, string> = {
        submitting: 'pending',
        pending: 'pending',
        originated: 'originated',
        settled: 'settled',
        returned_settled: 'returned R01',
        returned_pending: 'returned R01',
        voided: 'voided',
        declined: 'declined',
      };
      for (const [path, status] of Object.entries(expected)) {
        const row = rows.get(refs[path as CheckPath]);
        assert.ok(row !== undefined, `${path} listed`);
        assert.equal(row.status, status, path);
        assert.equal(row.paidWith, 'Check ••••6789', path);
      }
      assert.equal(rows.get(cardRef)?.paidWith, 'Visa ···· 1111');
      assert.equal(rows.get(cardRef)?.status, 'captured');
      assert.equal(rows.size, 11, "the other merchant's check is not listed");
      assert.equal(rows.get(refund)?.status, 'pending');
      assert.equal(rows.get(refund)?.paidWith, 'Check ••••6789');
      assert.ok(!page.body.includes(ACCOUNT) && !page.body.includes('123456789'), 'never more than the last four digits');
      assert.match(page.body, /class="badge badge-busy">originated</);
      assert.match(page.body, /class="badge badge-bad">returned</);
      assert.match(page.body, /class="badge badge-wait">pending</);
    });

    it('filters by payment type and by a status only checks show, keeping the filters in the links', async () => {
      const checks = listRows((await panel.get('/dashboard/charges?payment_type=check')).body).map((r) => Number(r.ref));
      assert.deepEqual(checks.sort(), [...Object.values(refs), oldSettled, refund].sort());
      const cards = listRows((await panel.get('/dashboard/charges?payment_type=card')).body).map((r) => Number(r.ref));
      assert.deepEqual(cards, [cardRef]);

      const returned = await panel.get('/dashboard/charges?status=returned&payment_type=check');
      assert.deepEqual(
        listRows(returned.body)
          .map((r) => Number(r.ref))
          .sort(),
        [refs.returned_settled, refs.returned_pending].sort(),
      );
      assert.match(returned.body, /<option value="check" selected>Check<\/option>/);
      assert.match(returned.body, /href="\/dashboard\/charges\/export\?status=returned&amp;payment_type=check" download>/);

      // An accepted check's charges row says approved: it must not read as an approved card.
      assert.deepEqual(listRows((await panel.get('/dashboard/charges?status=approved')).body), []);
      const pending = listRows((await panel.get('/dashboard/charges?status=pending')).body).map((r) => Number(r.ref));
      assert.deepEqual(pending.sort(), [refs.submitting, refs.pending, refund].sort());
      assert.deepEqual(
        listRows((await panel.get('/dashboard/charges?status=originated')).body).map((r) => Number(r.ref)),
        [refs.originated],
      );
      assert.deepEqual(
        listRows((await panel.get('/dashboard/charges?status=captured')).body).map((r) => Number(r.ref)),
        [cardRef],
      );

      const bad = await panel.get('/dashboard/charges?payment_type=cash');
      assert.equal(bad.status, 400);
      assert.equal(textOf(bad.body, 'notice'), 'Filter ignored: unknown payment type "cash".');
    });

    it('shows a returned check with its account, its timeline and the return code and reason up front', async () => {
      const page = await panel.get(`/dashboard/charges/${refs.returned_settled}`);
      assert.equal(page.status, 200);
      const body = decodeEntities(page.body);
      assert.match(body, /<div class="notice notice-error" role="alert"><strong>Returned R01<\/strong>: Insufficient funds/);
      for (const [term, value] of [
        ['Name on the account', 'Ada Lovelace'],
        ['Routing number', '<code>011000015</code>'],
        ['Account number', '••••6789'],
        ['Account type', 'Checking'],
        ['SEC code', 'WEB'],
        ['Payment type', 'Check (ACH)'],
        ['Amount', '42.50 USD'],
      ]) {
        assert.ok(body.includes(`<dt>${term}</dt><dd>${value}</dd>`), `${term}: ${value}`);
      }
      const timeline = /<ol class="timeline">([\s\S]*?)<\/ol>/.exec(body)?.[1] ?? '';
      const steps = [...timeline.matchAll(/class="badge badge-\w+">(\w+)</g)].map((m) => m[1]);
      assert.deepEqual(steps, ['Submitted', 'Originated', 'Settled', 'Returned']);
      assert.match(timeline, /Returned<\/span> <span>R01: Insufficient funds<\/span>/);
      assert.ok(!body.includes(ACCOUNT), 'the account number is never shown');
      assert.ok(!body.includes('action="/dashboard/charges/'), 'a returned check offers no action');
    });

    it('shows the timeline of a voided and of a declined check', async () => {
      const voided = decodeEntities((await panel.get(`/dashboard/charges/${refs.voided}`)).body);
      assert.deepEqual(
        [...(/<ol class="timeline">([\s\S]*?)<\/ol>/.exec(voided)?.[1] ?? '').matchAll(/class="badge badge-\w+">(\w+)</g)].map((m) => m[1]),
        ['Submitted', 'Voided'],
      );
      const declined = decodeEntities((await panel.get(`/dashboard/charges/${refs.declined}`)).body);
      assert.match(declined, /Declined<\/span> <span>Account closed at the bank<\/span>/);
    });

    it('offers a void only while pending, and refuses what the check or the panel rules out without changing anything', async () => {
      const page = await panel.get(`/dashboard/charges/${refs.pending}`);
      assert.match(page.body, new RegExp(`action="/dashboard/charges/${refs.pending}/void"`));
      assertOffered(decodeEntities(page.body), 'void');
      assert.ok(!page.body.includes(`/${refs.pending}/refund"`), 'a pending check is voided, not refunded');

      const untouched = await snapshot(t, shop.merchant_id);
      const capture = await panel.post(`/dashboard/charges/${refs.pending}/capture`, { amount: '42.50', confirm: 'yes' });
      assert.equal(capture.status, 422);
      assert.match(decodeEntities(capture.body), /A check is not captured: it settles by itself\./);
      assert.deepEqual(await snapshot(t, shop.merchant_id), untouched);

      const originated = await panel.post(`/dashboard/charges/${refs.originated}/void`, { confirm: 'yes' });
      assert.equal(originated.status, 422);
      assert.match(decodeEntities(originated.body), /a check can be voided only before it is originated; refund it once settled/);
      assert.ok(!(await panel.get(`/dashboard/charges/${refs.originated}`)).body.includes('action="/dashboard/charges/'));
    });

    it('offers a refund of a settled check only from five business days after it was made', async () => {
      const early = decodeEntities((await panel.get(`/dashboard/charges/${refs.settled}`)).body);
      assert.match(early, /id="refund-amount"[^>]*value="42.50"[^>]*disabled/);
      assert.match(early, /<p class="hint" id="refund-blocked">a check can be refunded from 5 business days after it was processed \(\d{4}-\d\d-\d\dT/);
      const refused = await panel.post(`/dashboard/charges/${refs.settled}/refund`, { amount: '42.50', confirm: 'yes' });
      assert.equal(refused.status, 422);
      assert.match(decodeEntities(refused.body), /a check can be refunded from 5 business days/);

      const later = decodeEntities((await panel.get(`/dashboard/charges/${oldSettled}`)).body);
      // 4.00 of it is being refunded already: what is left is offered.
      assert.match(later, /id="refund-amount"[^>]*value="6.00"/);
      assertOffered(later, 'refund');
      assert.ok(later.includes('<dt>Refunded</dt><dd>4.00 USD</dd>'));
      assert.ok(!later.includes('<dt>Captured</dt>'), 'a check is never captured');
      const refunds = /<h2>Refunds<\/h2>([\s\S]*?)<\/table>/.exec(later)?.[1] ?? '';
      assert.match(
        refunds,
        new RegExp(
          `href="/dashboard/charges/${refund}">${refund}</a></th><td><span class="badge badge-wait">pending</span></td>\\s*<td class="num">4.00 USD</td>`,
        ),
      );
      const refundPage = decodeEntities((await panel.get(`/dashboard/charges/${refund}`)).body);
      assert.ok(refundPage.includes(`<dt>Refund of</dt><dd><a href="/dashboard/charges/${oldSettled}">${oldSettled}</a></dd>`));
      assert.ok(refundPage.includes('<dt>Direction</dt><dd>Credit (money to the account)</dd>'));
      assert.ok(!refundPage.includes('action="/dashboard/charges/'), 'a refund offers no action');
    });

    it("judges a check's refund by the merchant's sandbox ACH clock, as the payin API does", async () => {
      const sandboxShop = await t.newMerchant({ name: 'Clocked shop' });
      await createUser(
        { db: t.service.db, clock: t.clock },
        { email: 'clocked@example.com', role: 'merchant', merchantId: sandboxShop.merchant_id, password: PASSWORD },
      );
      const clocked = new PanelClient(t.app);
      assert.equal((await clocked.signIn('clocked@example.com', PASSWORD)).status, 303);
      // Its life happened over the last day, on a clock of its own, so the sessions' clock stays where it is.
      const pastClock = new ManualClock(t.clock.nowMs() - DAY_MS);
      const settled = await checkAt({ ...checkStoreOf(t), clock: pastClock }, sandboxShop, 'settled', { amountCents: 2_000, accountNumber: ACCOUNT });
      const before = decodeEntities((await clocked.get(`/dashboard/charges/${settled}`)).body);
      assert.match(before, /<p class="hint" id="refund-blocked">a check can be refunded from 5 business days/);
      await advanceAchClock(t.service.db, { merchantId: sandboxShop.merchant_id, byMs: 10 * DAY_MS, nowMs: t.clock.nowMs() });
      const after = decodeEntities((await clocked.get(`/dashboard/charges/${settled}`)).body);
      assert.match(after, /id="refund-amount"[^>]*value="20.00"/);
      assertOffered(after, 'refund');
      // Another merchant's clock is its own.
      assert.match(decodeEntities((await panel.get(`/dashboard/charges/${refs.settled}`)).body), /a check can be refunded from 5 business days/);
    });

    it("shows the operator a check read only, and never another merchant's check", async () => {
      const operatorPage = await operator.get(`/dashboard/operator/merchants/${shop.merchant_id}/charges/${refs.pending}`);
      assert.equal(operatorPage.status, 200);
      assert.match(operatorPage.body, /Name on the account/);
      assert.ok(!operatorPage.body.includes('action="/dashboard/charges/'));
      assert.equal((await panel.get(`/dashboard/charges/${otherCheck}`)).status, 404);
      assert.equal((await otherPanel.get(`/dashboard/charges/${refs.pending}`)).status, 404);
      assert.equal((await otherPanel.post(`/dashboard/charges/${refs.pending}/void`, { confirm: 'yes' })).status, 404);
    });

    it('exports checks with payment type, account last four, ACH status and the return', async () => {
      const lines = csvLines((await panel.get('/dashboard/charges/export')).body);
      const header = lines[0]!.split(',');
      assert.deepEqual(header.slice(-5), ['payment_type', 'account_last4', 'ach_status', 'return_code', 'return_reason']);
      const byRef = new Map(lines.slice(1).map((l) => [Number(l.split(',')[0]), l.split(',')]));
      const column = (row: string[] | undefined, name: string) => row?.[header.indexOf(name)];
      const returned = byRef.get(refs.returned_pending);
      assert.equal(column(returned, 'status'), 'returned');
      assert.equal(column(returned, 'amount'), '42.50');
      assert.equal(column(returned, 'payment_type'), 'check');
      assert.equal(column(returned, 'account_last4'), '6789');
      assert.equal(column(returned, 'ach_status'), 'returned');
      assert.equal(column(returned, 'return_code'), 'R01');
      assert.equal(column(returned, 'return_reason'), 'Insufficient funds');
      assert.equal(column(returned, 'card_type'), '');
      assert.equal(column(returned, 'last4'), '');
      assert.equal(column(byRef.get(refs.originated), 'ach_status'), 'originated');
      const card = byRef.get(cardRef);
      assert.deepEqual(
        ['payment_type', 'account_last4', 'ach_status', 'return_code', 'card_type', 'last4'].map((n) => column(card, n)),
        ['card', '', '', '', 'Visa', '1111'],
      );
      assert.equal(lines.length, 12);
      const onlyReturned = csvLines((await panel.get('/dashboard/charges/export?status=returned')).body);
      assert.equal(onlyReturned.length, 3);
      assert.ok(!lines.join('\n').includes(ACCOUNT));
    });
  });
}
