// Checks end to end with the built-in Authorize.net eCheck connector
// (PAYRAIL_ACH_NETWORK=authorize-net) against the Authorize.net stand-in,
// through the public HTTP API and the worker, on both stores: a check charge
// is an authCaptureTransaction with the bank account at Authorize.net; the
// stand-in settles its batch and the worker's ACH sweep shows the check
// originated at the batch time, then settled on Payrail's own rule (two
// business days), with the merchant credited once; an account the stand-in
// returns (R01) after settlement shows returned and the credit taken back.
// The ledger verifies after each.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { merchantAccount } from '../../src/domain/ledger.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { getAchEntry } from '../../src/store/ach/entries.ts';
import { getAccount } from '../../src/store/ledger.ts';
import { createJobs } from '../../src/worker/jobs.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basicOf } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { type AuthorizeNetStandIn, startAuthorizeNetStandIn, type StandInTransaction } from '../providers/authorize-net/stand-in.ts';

const HOUR_MS = 3_600_000;
/** Monday 30 November 2026, 10:00 UTC. */
const MONDAY_10_UTC_MS = Date.UTC(2026, 10, 30, 10, 0, 0);
/** A routing number whose ABA check digit holds. */
const ROUTING = '021000021';
/** The stand-in settles this account's eCheck and returns it (R01) at the next settlement (test-data.ts ECHECK_RETURNS). */
const RETURNED_ACCOUNT = '4455667001';
const SETTLING_ACCOUNT = '4455661234';

for (const kind of STORE_KINDS) {
  describe(`checks at Authorize.net (${kind})`, () => {
    let standIn: AuthorizeNetStandIn;
    let t: TestApp;
    const clock = new ManualClock(MONDAY_10_UTC_MS);

    before(async () => {
      standIn = await startAuthorizeNetStandIn({ now: () => clock.nowMs() });
      t = await createTestApp(kind, {
        clock,
        env: {
          PAYRAIL_ACH_NETWORK: 'authorize-net',
          PAYRAIL_AUTHORIZE_NET_URL: standIn.url,
          PAYRAIL_AUTHORIZE_NET_LOGIN_ID: standIn.loginId,
          PAYRAIL_AUTHORIZE_NET_TRANSACTION_KEY: standIn.transactionKey,
        },
      });
      assert.ok(
        createJobs(t.service).some((job) => job.name === 'ach.lifecycle'),
        'the worker follows checks (job ach.lifecycle)',
      );
    });
    after(async () => {
      await t.close();
      await standIn.close();
    });

    // biome-ignore lint/suspicious/noExplicitAny: replies are read loosely, as integrations read them.
    async function chargeCheck(merchant: CreatedMerchant, accountNumber: string, amount: number): Promise<any> {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v2/transactions/charge',
        headers: { authorization: basicOf(merchant), 'content-type': 'application/json' },
        payload: JSON.stringify({ amount, name: 'Ada Lovelace', routing_number: ROUTING, account_number: accountNumber }),
      });
      assert.equal(response.statusCode, 200, response.body);
      return response.json();
    }

    /** The status the check shows over the API (status_details.status, either answer shape). */
    async function shownStatus(merchant: CreatedMerchant, pk: number): Promise<string> {
      const response = await t.app.inject({ method: 'GET', url: `/api/v2/transactions/${pk}`, headers: { authorization: basicOf(merchant) } });
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json() as { status_details?: { status?: string }; transaction?: { status_details?: { status?: string } } };
      return body.status_details?.status ?? body.transaction?.status_details?.status ?? '';
    }

    async function entryOf(merchant: CreatedMerchant, pk: number) {
      return (await t.service.db.read((tx) => getAchEntry(tx, pk, merchant.merchant_id)))!;
    }

    async function balance(merchantId: string, kindOf: 'available' | 'ach_pending'): Promise<number> {
      return Number((await t.service.db.read((tx) => getAccount(tx, merchantAccount(merchantId, kindOf))))!.balance_cents);
    }

    /** Time passes and the worker runs its sweeps until idle. */
    async function later(ms: number): Promise<void> {
      clock.advance(ms);
      await t.worker.drain();
    }

    /** Each case starts on a Monday at 10:00 UTC, so its business days are known. */
    function toNextMonday10Utc(): void {
      const weekMs = 7 * 24 * HOUR_MS;
      const sinceMs = (clock.nowMs() - MONDAY_10_UTC_MS) % weekMs;
      if (sinceMs !== 0) clock.advance(weekMs - sinceMs);
    }

    async function ledgerClean(): Promise<void> {
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    }

    function atStandIn(reference: string): StandInTransaction {
      const found = standIn.transactions().filter((transaction) => transaction.invoiceNumber === reference);
      assert.equal(found.length, 1, 'one eCheck at Authorize.net for the entry');
      return found[0]!;
    }

    it('a check is debited at Authorize.net, originated when its batch settles, settled two business days later, credited once', async () => {
      const merchant = await t.newMerchant();
      const reply = await chargeCheck(merchant, SETTLING_ACCOUNT, 25);
      const pk = Number(reply.reference_number);
      const entry = await entryOf(merchant, pk);
      assert.equal(entry.state, 'pending');
      assert.equal(entry.network, 'authorize-net');
      const echeck = standIn.transactions().find((transaction) => transaction.transId === entry.network_ref);
      assert.ok(echeck?.invoiceNumber, 'the entry names its eCheck at Authorize.net');
      assert.equal(atStandIn(echeck.invoiceNumber).transId, echeck.transId);
      assert.deepEqual(
        [echeck.type, echeck.status, echeck.settleAmountCents, echeck.bankAccount?.accountLastFour, echeck.bankAccount?.echeckType],
        ['authCaptureTransaction', 'capturedPendingSettlement', 2500, '1234', 'WEB'],
      );
      assert.equal(await shownStatus(merchant, pk), 'pending');
      assert.equal(await balance(merchant.merchant_id, 'ach_pending'), 2500);

      await later(11 * HOUR_MS); // Monday 21:00: Authorize.net's cut-off
      const batchAtMs = clock.nowMs();
      standIn.settle();
      await later(HOUR_MS);
      assert.deepEqual([(await entryOf(merchant, pk)).state, (await entryOf(merchant, pk)).originated_at_ms], ['originated', batchAtMs]);
      assert.equal(await shownStatus(merchant, pk), 'originated');
      assert.equal(await balance(merchant.merchant_id, 'available'), 0, 'nothing available before settlement');

      await later(2 * 24 * HOUR_MS); // Wednesday 22:00: two business days after origination
      assert.equal((await entryOf(merchant, pk)).state, 'settled');
      assert.equal(await shownStatus(merchant, pk), 'settled');
      assert.deepEqual([await balance(merchant.merchant_id, 'available'), await balance(merchant.merchant_id, 'ach_pending')], [2500, 0]);
      await later(24 * HOUR_MS);
      assert.equal(await balance(merchant.merchant_id, 'available'), 2500, 'credited once');
      await ledgerClean();
    });

    it('a check Authorize.net returns after settlement (R01) shows returned and its credit is taken back', async () => {
      toNextMonday10Utc();
      const merchant = await t.newMerchant();
      const reply = await chargeCheck(merchant, RETURNED_ACCOUNT, 40);
      const pk = Number(reply.reference_number);
      await later(HOUR_MS);
      standIn.settle();
      await later(3 * 24 * HOUR_MS); // past Payrail's own settlement
      assert.equal((await entryOf(merchant, pk)).state, 'settled');
      assert.equal(await balance(merchant.merchant_id, 'available'), 4000);

      const returnedAtMs = clock.nowMs();
      standIn.settle(); // the bank's return reaches Authorize.net
      await later(24 * HOUR_MS);
      const entry = await entryOf(merchant, pk);
      assert.deepEqual([entry.state, entry.returned_at_ms, entry.return_code], ['returned', returnedAtMs, 'R01']);
      assert.equal(await shownStatus(merchant, pk), 'returned');
      assert.equal(await balance(merchant.merchant_id, 'available'), 0, 'the credit is taken back');
      await ledgerClean();
    });
  });
}
