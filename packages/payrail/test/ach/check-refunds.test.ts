// Check voids, refunds, reversals and credits (behaviour.md section 17):
// a void before origination gives the money back to ach_payins; a refund
// only of a settled check and only from five business days after it was
// processed, paying the same account; a reversal picks between them and
// refuses an amount on an unsettled check; capture, adjust and queue of a
// check are refused; an unmatched check credit is held from the available
// balance. Every refusal writes nothing. On both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DAY_MS, ManualClock } from '../../src/domain/clock.ts';
import { cardCipherFor } from '../../src/crypto/card-key.ts';
import { settlesAtMs } from '../../src/domain/ach.ts';
import { EVENT_VIEWS } from '../../src/flows/events/emit.ts';
import { finishAchVoid, originateAchEntry, settleAchEntry } from '../../src/store/ach/transitions.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { acceptBlueMerchant } from '../helpers/acceptblue.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import {
  achBalances,
  chargeCheck,
  checkBody,
  entryState,
  MONDAY_10_UTC_MS,
  originateAndSettle,
  post,
  ROUTING,
  saveCheckMethod,
  snapshot,
} from './check-helpers.ts';

const FUND_CENTS = 100_000;

for (const kind of STORE_KINDS) {
  describe(`check voids, refunds and credits (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { clock: new ManualClock(MONDAY_10_UTC_MS) });
    });
    after(() => t.close());

    it('voids a check before origination: the money goes back to ach_payins, the check reads voided, a second void is refused', async () => {
      const merchant = await t.newMerchant({ fundCents: FUND_CENTS });
      const pk = (await chargeCheck(t, merchant)).reference_number;
      const reply = await post(t, merchant, 'void', { reference_number: pk }, { 'idempotency-key': 'void-1' });
      assert.equal(reply.statusCode, 200, reply.body);
      assert.equal(reply.json().transaction.status_details.status, 'voided');
      assert.equal(await entryState(t, merchant, pk), 'voided');
      const replay = await post(t, merchant, 'void', { reference_number: pk }, { 'idempotency-key': 'void-1' });
      assert.equal(replay.body, reply.body);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.deepEqual(await achBalances(t, merchant.merchant_id), { available: FUND_CENTS, ach_pending: 0, ach_payins: 0, ach_returns_due: 0 });
      const events = await t.service.db.read((tx) =>
        tx.all<{ type: string }>('SELECT type FROM events WHERE merchant_id = ? ORDER BY pk', [merchant.merchant_id]),
      );
      assert.deepEqual(
        events.map((e) => e.type),
        ['charge.approved', 'charge.voided'],
      );
      const before = await snapshot(t, merchant);
      const again = await post(t, merchant, 'void', { reference_number: pk });
      assert.equal(again.statusCode, 400);
      assert.match(again.json().error.message, /already voided/);
      assert.deepEqual(await snapshot(t, merchant), before);
    });

    it('answers a void the network finds too late with a clear error, and leaves the check pending for the worker', async () => {
      const merchant = await t.newMerchant({ fundCents: FUND_CENTS });
      const pk = (await chargeCheck(t, merchant)).reference_number;
      // The network originated it at the cut-off; Payrail has not heard yet (the entry is still pending).
      await t.service.db.write((tx) =>
        tx.run('INSERT INTO sandbox_ach_clocks (merchant_id, offset_ms, updated_at_ms) VALUES (?, ?, ?)', [merchant.merchant_id, DAY_MS, 0]),
      );
      const reply = await post(t, merchant, 'void', { reference_number: pk }, { 'idempotency-key': 'too-late' });
      assert.equal(reply.statusCode, 400, reply.body);
      assert.match(reply.json().error.message, /already originated/);
      // A refused void keeps no key.
      const keys = await t.service.db.read((tx) => tx.all('SELECT idem_key FROM idempotency_keys WHERE source_id = ?', [merchant.source.id]));
      assert.deepEqual(keys, []);
      assert.equal(await entryState(t, merchant, pk), 'pending');
      assert.deepEqual(await achBalances(t, merchant.merchant_id), { available: FUND_CENTS, ach_pending: 2500, ach_payins: -2500, ach_returns_due: 0 });
    });

    it('refuses to refund a pending or originated check, and a settled one before five business days, writing nothing', async () => {
      const merchant = await t.newMerchant({ fundCents: FUND_CENTS });
      const pk = (await chargeCheck(t, merchant)).reference_number;
      let before = await snapshot(t, merchant);
      const pending = await post(t, merchant, 'refund', { reference_number: pk });
      assert.equal(pending.statusCode, 400);
      assert.match(pending.json().error.message, /voided, not refunded/);
      assert.deepEqual(await snapshot(t, merchant), before);

      await originateAndSettle(t, merchant, pk, 'originated');
      before = await snapshot(t, merchant);
      const originated = await post(t, merchant, 'refund', { reference_number: pk });
      assert.equal(originated.statusCode, 400);
      assert.match(originated.json().error.message, /originated check cannot be refunded/);
      const voidOriginated = await post(t, merchant, 'void', { reference_number: pk });
      assert.equal(voidOriginated.statusCode, 400);
      assert.match(voidOriginated.json().error.message, /only before it is originated/);
      assert.deepEqual(await snapshot(t, merchant), before);

      await originateAndSettle(t, merchant, pk, 'settled');
      before = await snapshot(t, merchant);
      const early = await post(t, merchant, 'refund', { reference_number: pk });
      assert.equal(early.statusCode, 400);
      assert.match(early.json().error.message, /from 5 business days after it was processed \(2026-12-07T10:00:00.000Z\)/);
      assert.deepEqual(await snapshot(t, merchant), before);
    });

    it("counts the refund wait on the merchant's ACH clock from the check's time on that clock, when the clock was advanced before the charge", async () => {
      const merchant = await t.newMerchant({ fundCents: FUND_CENTS });
      const setOffset = (days: number) =>
        t.service.db.write((tx) =>
          tx.run(
            `INSERT INTO sandbox_ach_clocks (merchant_id, offset_ms, updated_at_ms) VALUES (?, ?, 0)
             ON CONFLICT (merchant_id) DO UPDATE SET offset_ms = excluded.offset_ms`,
            [merchant.merchant_id, days * DAY_MS],
          ),
        );
      // Charged on the ACH clock's Monday 7 December (the service clock's 30 November).
      await setOffset(7);
      const pk = (await chargeCheck(t, merchant)).reference_number;
      const base = { chargePk: pk, merchantId: merchant.merchant_id, nowMs: t.clock.nowMs(), views: EVENT_VIEWS, nextCheckAtMs: null };
      const originatedAtMs = Date.UTC(2026, 11, 7, 21, 0);
      assert.equal((await originateAchEntry(t.service.db, { ...base, originatedAtMs })).kind, 'moved');
      assert.equal((await settleAchEntry(t.service.db, { ...base, settledAtMs: settlesAtMs(originatedAtMs) })).kind, 'moved');
      // Thursday 10 December on the ACH clock: three business days after it was processed there.
      await setOffset(10);
      const before = await snapshot(t, merchant);
      const early = await post(t, merchant, 'refund', { reference_number: pk });
      assert.equal(early.statusCode, 400, early.body);
      assert.match(early.json().error.message, /from 5 business days after it was processed \(2026-12-14T10:00:00.000Z\)/);
      assert.deepEqual(await snapshot(t, merchant), before);
      await setOffset(14);
      const refund = await post(t, merchant, 'refund', { reference_number: pk });
      assert.equal(refund.statusCode, 200, refund.body);
    });

    it('refunds a settled check from five business days: a credit entry to the same account, held from available, part then the rest', async () => {
      const merchant = await t.newMerchant({ fundCents: FUND_CENTS });
      const pk = (await chargeCheck(t, merchant, { account_number: '44445555', account_type: 'Savings', sec_code: 'CCD' })).reference_number;
      await originateAndSettle(t, merchant, pk, 'settled');
      assert.deepEqual(await achBalances(t, merchant.merchant_id), { available: FUND_CENTS + 2500, ach_pending: 0, ach_payins: -2500, ach_returns_due: 0 });
      // Five business days after Monday 10:00 on the merchant's ACH clock (three days there already).
      await t.service.db.write((tx) => tx.run('UPDATE sandbox_ach_clocks SET offset_ms = ? WHERE merchant_id = ?', [7 * DAY_MS, merchant.merchant_id]));

      const part = await post(t, merchant, 'refund', { reference_number: pk, amount: 10 }, { 'idempotency-key': 'refund-part' });
      assert.equal(part.statusCode, 200, part.body);
      const refund = part.json();
      assert.notEqual(refund.reference_number, pk);
      assert.equal(refund.transaction.transaction_details.type, 'refund');
      assert.equal(refund.transaction.transaction_details.reference_number, String(pk));
      assert.equal(refund.transaction.amount_details.amount, 10);
      assert.equal(refund.transaction.status_details.status, 'pending');
      assert.deepEqual(refund.transaction.check_details, {
        name: 'Ada Lovelace',
        routing_number: ROUTING,
        account_number_last4: '5555',
        account_type: 'Savings',
        sec_code: 'CCD',
        returned_at: null,
        returned_code: null,
        returned_reason: null,
      });
      assert.deepEqual(await achBalances(t, merchant.merchant_id), { available: FUND_CENTS + 1500, ach_pending: 0, ach_payins: -1500, ach_returns_due: 0 });
      const rows = await t.service.db.read((tx) =>
        tx.all<{ kind: string; parent_pk: number; payment_type: string; card_number_enc: Buffer; source_id: string; refunded_cents: number }>(
          'SELECT kind, parent_pk, payment_type, card_number_enc, source_id, refunded_cents FROM charges WHERE pk IN (?, ?) ORDER BY pk',
          [pk, refund.reference_number],
        ),
      );
      assert.equal(Number(rows[0]!.refunded_cents), 1000);
      assert.equal(rows[1]!.kind, 'refund');
      assert.equal(Number(rows[1]!.parent_pk), pk);
      assert.equal(rows[1]!.payment_type, 'check');
      assert.equal(cardCipherFor(t.service.config).open(rows[1]!.card_number_enc, 'card_number', rows[1]!.source_id).reveal(), '44445555');
      const entry = await t.service.db.read((tx) =>
        tx.get<{ direction: string; state: string }>('SELECT direction, state FROM ach_entries WHERE charge_pk = ?', [refund.reference_number]),
      );
      assert.deepEqual({ ...entry }, { direction: 'credit', state: 'pending' });

      // The same key replays the refund; more than is left is refused; the rest (no amount) refunds it.
      const replay = await post(t, merchant, 'refund', { reference_number: pk, amount: 10 }, { 'idempotency-key': 'refund-part' });
      assert.equal(replay.body, part.body);
      const before = await snapshot(t, merchant);
      const tooMuch = await post(t, merchant, 'refund', { reference_number: pk, amount: 15.01 });
      assert.equal(tooMuch.statusCode, 400);
      assert.equal(tooMuch.json().error.code, 'invalid_amount');
      assert.deepEqual(await snapshot(t, merchant), before);
      const rest = await post(t, merchant, 'refund', { reference_number: pk });
      assert.equal(rest.statusCode, 200, rest.body);
      assert.equal(rest.json().transaction.amount_details.amount, 15);
      assert.deepEqual(await achBalances(t, merchant.merchant_id), { available: FUND_CENTS, ach_pending: 0, ach_payins: 0, ach_returns_due: 0 });
    });

    it('refuses a refund the available balance cannot cover as a card refund is refused, writing nothing', async () => {
      const merchant = await t.newMerchant({ fundCents: 0 });
      const pk = (await chargeCheck(t, merchant)).reference_number;
      await originateAndSettle(t, merchant, pk, 'settled');
      await t.service.db.write((tx) => tx.run('UPDATE sandbox_ach_clocks SET offset_ms = ? WHERE merchant_id = ?', [7 * DAY_MS, merchant.merchant_id]));
      // The settled money funds something else meanwhile: nothing available is left.
      await t.service.db.write((tx) => tx.run('UPDATE accounts SET balance_cents = 0, floor_cents = 0 WHERE id = ?', [`${merchant.merchant_id}:available`]));
      const before = await snapshot(t, merchant);
      const reply = await post(t, merchant, 'refund', { reference_number: pk });
      assert.equal(reply.statusCode, 400, reply.body);
      assert.equal(reply.json().error.code, 'insufficient_funds');
      assert.deepEqual(await snapshot(t, merchant), before);
    });

    it('reverses a pending check by voiding it, refuses a reversal amount on an unsettled check, and refuses capture, adjust, adjust-capture and queue', async () => {
      const merchant = await t.newMerchant({ fundCents: FUND_CENTS });
      const pk = (await chargeCheck(t, merchant)).reference_number;
      const before = await snapshot(t, merchant);
      const withAmount = await post(t, merchant, 'reversal', { reference_number: pk, amount: 5 });
      assert.equal(withAmount.statusCode, 400);
      assert.match(withAmount.json().error.message, /ACH transactions cannot be adjusted/);
      for (const operation of ['capture', 'adjust', 'adjust-capture'] as const) {
        const response = await post(t, merchant, operation, { reference_number: pk, ...(operation === 'capture' ? {} : { amount: 10 }) });
        assert.equal(response.statusCode, 400, `${operation}: ${response.body}`);
        assert.match(response.json().error.message, /is a check/);
      }
      const queue = await post(t, merchant, 'queue', { reference_number: pk });
      assert.equal(queue.statusCode, 422, queue.body);
      assert.deepEqual(await snapshot(t, merchant), before);
      const reversal = await post(t, merchant, 'reversal', { reference_number: pk });
      assert.equal(reversal.statusCode, 200, reversal.body);
      assert.equal(reversal.json().transaction.status_details.status, 'voided');
      assert.deepEqual(await achBalances(t, merchant.merchant_id), { available: FUND_CENTS, ach_pending: 0, ach_payins: 0, ach_returns_due: 0 });
    });

    it('answers accept.blue callers: void and reversal as Void, refund with the new reference number, no error members', async () => {
      const merchant = await acceptBlueMerchant(t, FUND_CENTS);
      const voided = await chargeCheck(t, merchant);
      const voidAnswer = await post(t, merchant, 'void', { reference_number: voided.reference_number });
      assert.deepEqual(voidAnswer.json(), {
        version: voidAnswer.json().version,
        status: 'Approved',
        status_code: 'A',
        error_message: null,
        error_code: null,
        error_details: null,
      });
      const reversed = await chargeCheck(t, merchant);
      const reversal = await post(t, merchant, 'reversal', { reference_number: reversed.reference_number });
      assert.equal(reversal.json().type, 'Void');
      assert.equal(reversal.json().status_code, 'A');
      const settled = await chargeCheck(t, merchant);
      await originateAndSettle(t, merchant, settled.reference_number, 'settled');
      await t.service.db.write((tx) => tx.run('UPDATE sandbox_ach_clocks SET offset_ms = ? WHERE merchant_id = ?', [7 * DAY_MS, merchant.merchant_id]));
      const refund = await post(t, merchant, 'reversal', { reference_number: settled.reference_number, amount: '5.00' });
      assert.equal(refund.statusCode, 200, refund.body);
      assert.equal(refund.json().type, 'Refund');
      assert.equal(refund.json().status_code, 'A');
      assert.notEqual(refund.json().reference_number, settled.reference_number);
    });

    it('leaves a void the network does not answer voiding (shown pending) for the worker, with the money still in ach_pending', async () => {
      const merchant = await t.newMerchant({ fundCents: FUND_CENTS });
      const pk = (await chargeCheck(t, merchant)).reference_number;
      const network = t.service.providers.achNetwork!;
      const voidEntry = network.voidEntry;
      (network as { voidEntry: typeof voidEntry }).voidEntry = async () => {
        throw new Error('timeout');
      };
      try {
        const reply = await post(t, merchant, 'void', { reference_number: pk });
        assert.equal(reply.statusCode, 200, reply.body);
        assert.equal(reply.json().transaction.status_details.status, 'pending');
        assert.equal(await entryState(t, merchant, pk), 'voiding');
        assert.deepEqual(await achBalances(t, merchant.merchant_id), { available: FUND_CENTS, ach_pending: 2500, ach_payins: -2500, ach_returns_due: 0 });
        const again = await post(t, merchant, 'void', { reference_number: pk });
        assert.equal(again.statusCode, 400);
        assert.match(again.json().error.message, /void of the check is in progress/);
      } finally {
        (network as { voidEntry: typeof voidEntry }).voidEntry = voidEntry;
      }
    });

    it('answers a same-key void retry with the check as it is now once a void the network left unanswered is finished', async () => {
      const merchant = await t.newMerchant({ fundCents: FUND_CENTS });
      const pk = (await chargeCheck(t, merchant)).reference_number;
      const network = t.service.providers.achNetwork! as { voidEntry: unknown; callTimeoutMs?: number };
      const { voidEntry, callTimeoutMs } = network;
      // The network hangs: the void's deadline passes without an answer.
      network.voidEntry = () => new Promise(() => {});
      network.callTimeoutMs = 20;
      try {
        const reply = await post(t, merchant, 'void', { reference_number: pk }, { 'idempotency-key': 'lost-void' });
        assert.equal(reply.statusCode, 200, reply.body);
        assert.equal(reply.json().transaction.status_details.status, 'pending');
        assert.equal(await entryState(t, merchant, pk), 'voiding');
        // The worker finishes the void; the void's request time is over.
        const nowMs = t.clock.nowMs();
        const finished = await finishAchVoid(t.service.db, { chargePk: pk, merchantId: merchant.merchant_id, nowMs, views: EVENT_VIEWS, nextCheckAtMs: null });
        assert.equal(finished.kind, 'moved');
        t.clock.advance(60_000);
        const retry = await post(t, merchant, 'void', { reference_number: pk }, { 'idempotency-key': 'lost-void' });
        assert.equal(retry.statusCode, 200, retry.body);
        assert.equal(retry.headers['idempotent-replayed'], 'true');
        assert.equal(retry.json().transaction.status_details.status, 'voided');
      } finally {
        network.voidEntry = voidEntry;
        if (callTimeoutMs === undefined) delete network.callTimeoutMs;
        else network.callTimeoutMs = callTimeoutMs;
      }
    });

    it('credits a saved check method (pm-) with its account', async () => {
      const merchant = await t.newMerchant({ fundCents: 5000 });
      const saved = await saveCheckMethod(t, merchant, { account: '12340007', accountType: 'savings', secCode: 'CCD' });
      const reply = await post(t, merchant, 'credit', { amount: 12, source: `pm-${saved.methodPk}` });
      assert.equal(reply.statusCode, 200, reply.body);
      assert.equal(reply.json().transaction.check_details.account_number_last4, '0007');
      assert.equal(reply.json().transaction.check_details.sec_code, 'CCD');
      assert.deepEqual(await achBalances(t, merchant.merchant_id), { available: 3800, ach_pending: 0, ach_payins: 1200, ach_returns_due: 0 });
    });

    it('credits a bank account no charge names: a credit entry held from available; below the floor refused as a card credit', async () => {
      const merchant = await t.newMerchant({ fundCents: 5000 });
      const reply = await post(t, merchant, 'credit', {
        amount: 30,
        name: 'Ada Lovelace',
        routing_number: ROUTING,
        account_number: '99990000',
        sec_code: 'PPD',
      });
      assert.equal(reply.statusCode, 200, reply.body);
      const credit = reply.json();
      assert.equal(credit.status, 'Approved');
      assert.equal(credit.transaction.transaction_details.type, 'refund');
      assert.equal(credit.transaction.transaction_details.reference_number, null);
      assert.equal(credit.transaction.check_details.account_number_last4, '0000');
      assert.equal(credit.transaction.check_details.account_type, 'checking');
      assert.deepEqual(await achBalances(t, merchant.merchant_id), { available: 2000, ach_pending: 0, ach_payins: 3000, ach_returns_due: 0 });
      const row = await t.service.db.read((tx) =>
        tx.get<{ kind: string; parent_pk: number | null; payment_type: string }>('SELECT kind, parent_pk, payment_type FROM charges WHERE pk = ?', [
          credit.reference_number,
        ]),
      );
      assert.deepEqual({ ...row }, { kind: 'refund', parent_pk: null, payment_type: 'check' });
      const before = await snapshot(t, merchant);
      const tooMuch = await post(t, merchant, 'credit', { amount: 20.01, name: 'Ada Lovelace', routing_number: ROUTING, account_number: '99990000' });
      assert.equal(tooMuch.statusCode, 400);
      assert.equal(tooMuch.json().error.code, 'insufficient_funds');
      const both = await post(t, merchant, 'credit', { ...checkBody(), source: 'pm-1' });
      assert.equal(both.statusCode, 400);
      assert.match(both.json().error.message, /exactly one of card, source or a bank account/);
      assert.deepEqual(await snapshot(t, merchant), before);
      // Voided before origination, the hold goes back to the merchant.
      const voided = await post(t, merchant, 'void', { reference_number: credit.reference_number });
      assert.equal(voided.statusCode, 200, voided.body);
      assert.deepEqual(await achBalances(t, merchant.merchant_id), { available: 5000, ach_pending: 0, ach_payins: 0, ach_returns_due: 0 });
    });
  });
}
