// The transfer worker records a claimed batch in one transaction. A row that
// someone else changed while the batch was at the network loses only its own
// step; the other rows of the batch are recorded, with the history and
// events they would have had one by one, and the ledger stays exact.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { advanceDueTransfers, CLAIM_LEASE_MS } from '../../src/flows/transfers/advance.ts';
import type { PayoutNetwork, PayoutSubmission } from '../../src/providers/payout-network.ts';
import type { Service } from '../../src/service.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { assertLedgerOk, balances, caller, events, transferBody, transferPk } from '../helpers/transfers.ts';

for (const kind of STORE_KINDS) {
  describe(`transfer worker batches (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(async () => {
      await t.close();
    });

    it('drops only the step of a row changed while its batch was at the network', async () => {
      const merchant = await t.newMerchant({ fundCents: 100_000 });
      const api = caller(t.app, merchant.transfer_api_key);
      const bodies = [transferBody({ amount: '1.00' }), transferBody({ amount: '2.00' }), transferBody({ amount: '4.00', lastFour: '0004' })];
      for (const body of bodies) assert.equal((await api.execute(body)).status, 200);
      const racedPk = await transferPk(t.service, merchant.merchant_id, bodies[1]!.id);

      // While the raced transfer's submission is at the network, another writer changes its row.
      const network = t.service.providers.payoutNetwork;
      const racing: PayoutNetwork = Object.assign(Object.create(network) as PayoutNetwork, {
        async submit(submission: PayoutSubmission) {
          if (submission.idempotencyKey === t.service.providerKeys.key('transfer', racedPk)) {
            await t.service.db.write((tx) => tx.run('UPDATE transfers SET version = version + 1 WHERE pk = ?', [racedPk]));
          }
          return network.submit(submission);
        },
      });
      const service: Service = { ...t.service, providers: { ...t.service.providers, payoutNetwork: racing } };
      assert.deepEqual(await advanceDueTransfers(service), { claimed: 3, stale: 1 });

      // Submitted and polled in one step each: both changes are in the history.
      assert.deepEqual(await events(t.service, merchant.merchant_id, bodies[0]!.id), [
        [0, 0],
        [40, 1],
        [60, 0],
      ]);
      assert.deepEqual(await events(t.service, merchant.merchant_id, bodies[1]!.id), [[0, 0]]);
      assert.deepEqual(await events(t.service, merchant.merchant_id, bodies[2]!.id), [
        [0, 0],
        [40, 1],
        [80, 5],
      ]);
      assert.deepEqual(await balances(t.service, merchant.merchant_id), { available: 100_000 - 100 - 200, in_flight: 200, paid_out: 100 });
      await assertLedgerOk(t.service);

      // The raced transfer is due again (on PostgreSQL once its claim's lease ends) and finishes.
      t.clock.advance(CLAIM_LEASE_MS + 1);
      await t.worker.drain();
      assert.deepEqual(await events(t.service, merchant.merchant_id, bodies[1]!.id), [
        [0, 0],
        [40, 1],
        [60, 0],
      ]);
      assert.deepEqual(await balances(t.service, merchant.merchant_id), { available: 100_000 - 100 - 200, in_flight: 0, paid_out: 300 });
      await assertLedgerOk(t.service);
    });

    it('records the rest of a batch when one row is in a state it cannot advance, then reports that row', async () => {
      const merchant = await t.newMerchant({ fundCents: 100_000 });
      const api = caller(t.app, merchant.transfer_api_key);
      const bodies = [transferBody({ amount: '1.00' }), transferBody({ amount: '2.00' })];
      for (const body of bodies) assert.equal((await api.execute(body)).status, 200);
      const brokenPk = await transferPk(t.service, merchant.merchant_id, bodies[0]!.id);
      // Processing at the network without a network reference: nothing the worker knows how to move on.
      await t.service.db.write((tx) => tx.run('UPDATE transfers SET state = 40, substate = 1 WHERE pk = ?', [brokenPk]));
      await assert.rejects(advanceDueTransfers(t.service), /cannot advance: 40\/1/);
      assert.deepEqual(await events(t.service, merchant.merchant_id, bodies[0]!.id), [[0, 0]]);
      assert.deepEqual(await events(t.service, merchant.merchant_id, bodies[1]!.id), [
        [0, 0],
        [40, 1],
        [60, 0],
      ]);
      // Put back as it was, it finishes like any other.
      await t.service.db.write((tx) => tx.run('UPDATE transfers SET state = 0, substate = 0, lease_until_ms = 0 WHERE pk = ?', [brokenPk]));
      await t.worker.drain();
      assert.deepEqual(await events(t.service, merchant.merchant_id, bodies[0]!.id), [
        [0, 0],
        [40, 1],
        [60, 0],
      ]);
      await assertLedgerOk(t.service);
    });
  });
}
