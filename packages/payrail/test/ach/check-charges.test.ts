// Check charges over POST /api/v2/transactions/charge (behaviour.md section
// 17): a bank account in either wire dialect, or a saved check method; the
// refusals (each a 400 that writes nothing); Idempotency-Key replays; the
// money (ach_pending holds a check until it settles); and how a check reads
// everywhere: check_details with the account's last four only, never the
// number, in answers, events and log lines. On both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/domain/clock.ts';
import type { AchNetwork } from '../../src/providers/ach-network.ts';
import { changeSurcharges } from '../../src/flows/merchants/surcharges.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { acceptBlueMerchant } from '../helpers/acceptblue.ts';
import { chargeCard } from '../helpers/lifecycle.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import {
  achBalances,
  BAD_ROUTING,
  chargeCheck,
  checkBody,
  entryState,
  get,
  MONDAY_10_UTC_MS,
  originateAndSettle,
  post,
  ROUTING,
  snapshot,
  saveCheckMethod,
} from './check-helpers.ts';
import { cardCipherFor } from '../../src/crypto/card-key.ts';

const FUND_CENTS = 100_000;

for (const kind of STORE_KINDS) {
  describe(`check charges (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { clock: new ManualClock(MONDAY_10_UTC_MS) });
    });
    after(() => t.close());

    it('charges a bank account: approved, pending on the ACH network, its amount in ach_pending, nothing available until it settles', async () => {
      const merchant = await t.newMerchant({ fundCents: FUND_CENTS });
      const reply = await chargeCheck(t, merchant, { account_type: 'Checking', sec_code: 'PPD' });
      assert.equal(reply.status, 'Approved');
      assert.equal(reply.status_code, 'A');
      const pk = reply.reference_number;
      assert.equal(reply.transaction.id, pk);
      assert.equal(reply.transaction.status_details.status, 'pending');
      assert.equal(reply.transaction.transaction_details.batch_id, null);
      assert.equal(reply.transaction.card_details, undefined);
      assert.deepEqual(reply.transaction.check_details, {
        name: 'Ada Lovelace',
        routing_number: ROUTING,
        account_number_last4: '6789',
        account_type: 'Checking',
        sec_code: 'PPD',
        returned_at: null,
        returned_code: null,
        returned_reason: null,
      });
      assert.equal(await entryState(t, merchant, pk), 'pending');
      assert.deepEqual(await achBalances(t, merchant.merchant_id), { available: FUND_CENTS, ach_pending: 2500, ach_payins: -2500, ach_returns_due: 0 });

      await originateAndSettle(t, merchant, pk, 'originated');
      const originated = (await get(t, merchant, `/api/v2/transactions/${pk}`)).json();
      assert.equal(originated.transaction.status_details.status, 'originated');
      assert.equal(originated.transaction.settled_date, null);
      assert.deepEqual(await achBalances(t, merchant.merchant_id), { available: FUND_CENTS, ach_pending: 2500, ach_payins: -2500, ach_returns_due: 0 });

      await originateAndSettle(t, merchant, pk, 'settled');
      const settled = (await get(t, merchant, `/api/v2/transactions/${pk}`)).json();
      assert.equal(settled.transaction.status_details.status, 'settled');
      assert.equal(settled.transaction.settled_date, '2026-12-02');
      assert.deepEqual(await achBalances(t, merchant.merchant_id), { available: FUND_CENTS + 2500, ach_pending: 0, ach_payins: -2500, ach_returns_due: 0 });
    });

    it('never shows, logs or emits the full account number: answers, events and log lines carry its last four only', async () => {
      const merchant = await t.newMerchant({ fundCents: FUND_CENTS });
      const secret = '90817263544321';
      const reply = await chargeCheck(t, merchant, { account_number: secret });
      const pk = reply.reference_number;
      assert.equal(reply.transaction.check_details.account_number_last4, '4321');
      const texts = [
        JSON.stringify(reply),
        (await get(t, merchant, `/api/v2/transactions/${pk}`)).body,
        (await get(t, merchant, '/api/v2/transactions?payment_type=check')).body,
        JSON.stringify(await t.service.db.read((tx) => tx.all('SELECT type, data_json FROM events WHERE merchant_id = ?', [merchant.merchant_id]))),
        JSON.stringify(await t.service.db.read((tx) => tx.all('SELECT request_json FROM charges WHERE pk = ?', [pk]))),
        t.logLines.join('\n'),
      ];
      for (const text of texts) assert.ok(!text.includes(secret), `account number found in ${text.slice(0, 200)}`);
      const events = await t.service.db.read((tx) =>
        tx.all<{ type: string; data_json: string }>('SELECT type, data_json FROM events WHERE merchant_id = ? ORDER BY pk', [merchant.merchant_id]),
      );
      assert.deepEqual(
        events.map((e) => e.type),
        ['charge.approved'],
      );
      const data = JSON.parse(events[0]!.data_json);
      assert.equal(data.transaction.check_details.account_number_last4, '4321');
      assert.equal(data.transaction.status_details.status, 'pending');
    });

    it("takes WooCommerce's ACH checkout as sent (accept.blue dialect): Check Response, status_code A, the account type echoed as sent", async () => {
      const merchant = await acceptBlueMerchant(t, FUND_CENTS);
      const response = await post(t, merchant, 'charge', {
        name: 'Ada Lovelace',
        ignore_duplicates: true,
        customer: { email: 'ada@example.com' },
        amount: 54.3,
        amount_details: { tax: 4.3 },
        routing_number: ROUTING,
        account_number: '123456789',
        account_type: 'Savings',
        billing_info: {
          first_name: 'Ada',
          last_name: 'Lovelace',
          street: '1 Way',
          city: 'Springfield',
          state: 'IL',
          zip: '62701',
          country: 'US',
          email: 'ada@example.com',
        },
        shipping_info: { first_name: 'Ada', last_name: 'Lovelace' },
        transaction_details: { order_number: '42' },
      });
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.status_code, 'A');
      assert.equal(body.status, 'Approved');
      assert.equal(body.error_message, null);
      assert.equal(body.auth_amount, 54.3);
      assert.equal(body.card_type, undefined);
      assert.equal(body.last_4, undefined);
      assert.equal(body.transaction.card_details, undefined);
      assert.equal(body.transaction.status_details.status, 'pending');
      assert.equal(body.transaction.transaction_details.batch_id, null);
      assert.deepEqual(body.transaction.check_details, {
        name: 'Ada Lovelace',
        routing_number: ROUTING,
        account_number_last4: '6789',
        account_type: 'Savings',
        sec_code: 'WEB',
        returned_at: null,
        returned_code: null,
        returned_reason: null,
      });
      // GET answers the bare transaction object, as the plugin's refund routing reads it.
      const read = (await get(t, merchant, `/api/v2/transactions/${body.reference_number}`)).json();
      assert.equal(read.status_details.status, 'pending');
      assert.equal(read.check_details.account_type, 'Savings');
      assert.deepEqual(await achBalances(t, merchant.merchant_id), { available: FUND_CENTS, ach_pending: 5430, ach_payins: -5430, ach_returns_due: 0 });
    });

    it('refuses every malformed check with a 400 that names the rule and writes nothing', async () => {
      const merchant = await t.newMerchant({ fundCents: FUND_CENTS });
      const before = await snapshot(t, merchant);
      const cases: Array<[Record<string, unknown>, string, RegExp]> = [
        [{ routing_number: BAD_ROUTING }, 'invalid_request', /ABA check digit/],
        [{ routing_number: '02100002' }, 'invalid_request', /exactly 9 digits/],
        [{ account_number: '123' }, 'invalid_request', /4 to 17 digits/],
        [{ account_number: '123456789012345678' }, 'invalid_request', /4 to 17 digits/],
        [{ account_number: '12a456' }, 'invalid_request', /digits only/],
        [{ name: undefined }, 'invalid_request', /name is required/],
        [{ name: '   ' }, 'invalid_request', /name is required/],
        [{ account_number: undefined }, 'invalid_request', /account_number is required/],
        [{ routing_number: undefined }, 'invalid_request', /routing_number is required/],
        [{ source: 'nonce-abcdefghijklmnopqrst' }, 'invalid_request', /exactly one of card, source or a bank account/],
        [{ card: '4111111111111111', expiry_month: 12, expiry_year: 2035 }, 'invalid_request', /exactly one of card, source or a bank account/],
        [{ capture: false }, 'invalid_request', /cannot be authorized only/],
        [{ account_type: 'business' }, 'invalid_request', /account_type/],
        [{ sec_code: 'ARC' }, 'invalid_request', /sec_code/],
        [{ amount: 0.49 }, 'invalid_amount', /at least 0.50/],
        [{ amount: 100000.01 }, 'invalid_amount', /at most 100000.00/],
      ];
      for (const [index, [overrides, code, message]] of cases.entries()) {
        const body = checkBody(overrides);
        for (const [name, value] of Object.entries(overrides)) if (value === undefined) delete body[name];
        const response = await post(t, merchant, 'charge', body, { 'idempotency-key': `refused-${index}` });
        assert.equal(response.statusCode, 400, `${JSON.stringify(overrides)}: ${response.body}`);
        assert.equal(response.json().error.code, code, JSON.stringify(overrides));
        assert.match(response.json().error.message, message, JSON.stringify(overrides));
      }
      assert.deepEqual(await snapshot(t, merchant), before);
    });

    it('replays a check charge for its Idempotency-Key, and refuses the key with another body', async () => {
      const merchant = await t.newMerchant({ fundCents: FUND_CENTS });
      const first = await post(t, merchant, 'charge', checkBody(), { 'idempotency-key': 'check-1' });
      assert.equal(first.statusCode, 200, first.body);
      const again = await post(t, merchant, 'charge', checkBody(), { 'idempotency-key': 'check-1' });
      assert.equal(again.statusCode, 200);
      assert.equal(again.body, first.body);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      const other = await post(t, merchant, 'charge', checkBody({ account_number: '000123456780' }), { 'idempotency-key': 'check-1' });
      assert.equal(other.statusCode, 400);
      assert.equal(other.json().error.code, 'idempotency_key_reused');
      const count = await t.service.db.read((tx) =>
        tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM charges WHERE merchant_id = ? AND payment_type = 'check'", [merchant.merchant_id]),
      );
      assert.equal(Number(count!.n), 1);
      assert.deepEqual(await achBalances(t, merchant.merchant_id), { available: FUND_CENTS, ach_pending: 2500, ach_payins: -2500, ach_returns_due: 0 });
    });

    it("charges a saved check method (pm-) with its account, a sent sec_code overriding the method's", async () => {
      const merchant = await t.newMerchant({ fundCents: FUND_CENTS });
      const saved = await saveCheckMethod(t, merchant, { account: '5551234567', accountType: 'Checking', secCode: 'PPD' });
      const plain = await post(t, merchant, 'charge', { amount: 12.5, source: `pm-${saved.methodPk}` });
      assert.equal(plain.statusCode, 200, plain.body);
      assert.equal(plain.json().status, 'Approved');
      assert.deepEqual(plain.json().transaction.check_details, {
        name: 'Ada Lovelace',
        routing_number: ROUTING,
        account_number_last4: '4567',
        account_type: 'Checking',
        sec_code: 'PPD',
        returned_at: null,
        returned_code: null,
        returned_reason: null,
      });
      assert.equal(plain.json().transaction.customer.customer_id, String(saved.customerPk));
      const overridden = await post(t, merchant, 'charge', { amount: 1, source: `pm-${saved.methodPk}`, sec_code: 'TEL' });
      assert.equal(overridden.json().transaction.check_details.sec_code, 'TEL');
      const authorizeOnly = await post(t, merchant, 'charge', { amount: 1, source: `pm-${saved.methodPk}`, capture: false });
      assert.equal(authorizeOnly.statusCode, 400);
      assert.deepEqual(await achBalances(t, merchant.merchant_id), { available: FUND_CENTS, ach_pending: 1350, ach_payins: -1350, ach_returns_due: 0 });
      // The account sealed with the charge is the method's: the network is asked with it (its last four decide the sandbox's returns).
      const sealed = await t.service.db.read((tx) =>
        tx.get<{ card_number_enc: Buffer; source_id: string }>('SELECT card_number_enc, source_id FROM charges WHERE pk = ?', [plain.json().reference_number]),
      );
      assert.equal(cardCipherFor(t.service.config).open(sealed!.card_number_enc, 'card_number', sealed!.source_id).reveal(), '5551234567');
    });

    it("adds the merchant's check surcharge to a check charge", async () => {
      const merchant = await t.newMerchant({ fundCents: FUND_CENTS });
      await changeSurcharges(t.service, {
        merchantId: merchant.merchant_id,
        changes: { card: { kind: 'percent', thousandthsOfPercent: 3000 }, check: { kind: 'currency', amountCents: 150 } },
      });
      const reply = await chargeCheck(t, merchant, { amount: 20 });
      assert.equal(reply.auth_amount, 21.5);
      assert.equal(reply.transaction.amount_details.amount, 21.5);
      assert.equal(reply.transaction.amount_details.surcharge, 1.5);
      assert.deepEqual(await achBalances(t, merchant.merchant_id), { available: FUND_CENTS, ach_pending: 2150, ach_payins: -2150, ach_returns_due: 0 });
    });

    it('leaves an unanswered submission submitting and answers it pending; a retry with the key answers pending at once', async () => {
      const merchant = await t.newMerchant({ fundCents: FUND_CENTS });
      const network = t.service.providers.achNetwork!;
      const submit = network.submit;
      let calls = 0;
      (network as { submit: typeof submit }).submit = async () => {
        calls += 1;
        throw new Error('connection reset');
      };
      try {
        const first = await post(t, merchant, 'charge', checkBody(), { 'idempotency-key': 'unanswered-1' });
        assert.equal(first.statusCode, 200, first.body);
        assert.equal(first.json().status, 'Pending');
        assert.equal(first.json().status_code, 'P');
        assert.equal(first.json().transaction.status_details.status, 'pending');
        const pk = first.json().reference_number;
        assert.equal(await entryState(t, merchant, pk), 'submitting');
        const row = await t.service.db.read((tx) =>
          tx.get<{ status: string; next_run_at_ms: number | null }>('SELECT status, next_run_at_ms FROM charges WHERE pk = ?', [pk]),
        );
        // Card recovery never picks a check: its retry is the ACH entry's.
        assert.deepEqual({ ...row }, { status: 'pending', next_run_at_ms: null });
        const retry = await post(t, merchant, 'charge', checkBody(), { 'idempotency-key': 'unanswered-1' });
        assert.equal(retry.body, first.body);
        assert.equal(calls, 1);
        assert.deepEqual(await achBalances(t, merchant.merchant_id), { available: FUND_CENTS, ach_pending: 0, ach_payins: 0, ach_returns_due: 0 });
      } finally {
        (network as { submit: typeof submit }).submit = submit;
      }
    });

    it('stops waiting for a network that hangs at its deadline, aborting the call, and answers the check pending', async () => {
      const merchant = await t.newMerchant({ fundCents: FUND_CENTS });
      const network = t.service.providers.achNetwork! as { submit: AchNetwork['submit']; callTimeoutMs?: number };
      const submit = network.submit;
      let signal: AbortSignal | undefined;
      network.callTimeoutMs = 50;
      network.submit = (submission) => {
        signal = submission.signal;
        return new Promise(() => undefined);
      };
      try {
        const reply = await chargeCheck(t, merchant);
        assert.equal(reply.status, 'Pending');
        assert.equal(signal?.aborted, true);
        assert.equal(await entryState(t, merchant, reply.reference_number), 'submitting');
      } finally {
        network.submit = submit;
        delete network.callTimeoutMs;
      }
    });

    it('records a declined entry: shape B in the spec dialect, Declined in the accept.blue one, no money moved', async () => {
      const network = t.service.providers.achNetwork!;
      const submit = network.submit;
      (network as { submit: typeof submit }).submit = async () => ({ outcome: 'declined', networkRef: 'achs_declined', declineMessage: 'Account frozen' });
      try {
        const merchant = await t.newMerchant({ fundCents: FUND_CENTS });
        const spec = await post(t, merchant, 'charge', checkBody());
        assert.equal(spec.statusCode, 200, spec.body);
        assert.equal(spec.json().status, 'declined');
        assert.deepEqual(spec.json().error, { code: 'check_declined', message: 'Account frozen' });
        assert.equal(spec.json().card.last_four, '6789');
        const abMerchant = await acceptBlueMerchant(t, FUND_CENTS);
        const ab = await post(t, abMerchant, 'charge', checkBody());
        assert.equal(ab.json().status, 'Declined');
        assert.equal(ab.json().status_code, 'D');
        assert.equal(ab.json().error_message, 'Account frozen');
        assert.equal(ab.json().transaction.status_details.status, 'declined');
        for (const m of [merchant, abMerchant]) {
          assert.deepEqual(await achBalances(t, m.merchant_id), { available: FUND_CENTS, ach_pending: 0, ach_payins: 0, ach_returns_due: 0 });
        }
      } finally {
        (network as { submit: typeof submit }).submit = submit;
      }
    });
  });
}

for (const kind of STORE_KINDS) {
  describe(`check charges without an ACH network (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { clock: new ManualClock(MONDAY_10_UTC_MS), env: { PAYRAIL_ACH_NETWORK: 'none' } });
    });
    after(() => t.close());

    it('refuses a check charge and a check credit clearly (check_payments_unavailable) and writes nothing; cards still charge', async () => {
      assert.equal(t.service.providers.achNetwork, null);
      const merchant = await t.newMerchant({ fundCents: FUND_CENTS });
      const before = await snapshot(t, merchant);
      for (const path of ['charge', 'credit']) {
        const response = await post(t, merchant, path, checkBody(), { 'idempotency-key': `none-${path}` });
        assert.equal(response.statusCode, 400, response.body);
        assert.equal(response.json().error.code, 'check_payments_unavailable');
        assert.match(response.json().error.message, /no ACH network/);
      }
      assert.deepEqual(await snapshot(t, merchant), before);
      const card = await chargeCard(t, merchant, { amount: 5 });
      assert.equal((await get(t, merchant, `/api/v2/transactions/${card}`)).json().transaction.status_details.status, 'captured');
    });
  });
}
