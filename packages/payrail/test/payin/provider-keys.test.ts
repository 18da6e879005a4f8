// Every provider call names its record by a key of this installation
// (behaviour.md section 18), and charges of kept cards carry the card
// networks' credential-on-file flags with the first authorization's network
// transaction id (domain/stored-credential.ts). On both stores: the card
// processor and the payout network are the sandbox ones, wrapped to record
// what they are asked.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ProviderKeyKind, providerKeysOf } from '../../src/domain/provider-keys.ts';
import { executeTransfer } from '../../src/flows/transfers/execute.ts';
import type { StoredCredential } from '../../src/providers/card-processor.ts';
import { sandboxNetworkTransactionId } from '../../src/providers/card-processor-sandbox.ts';
import type { PayoutSubmission } from '../../src/providers/payout-network.ts';
import { readInstallation } from '../../src/store/installation.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { closeSandboxBatch, operateOk, verifyCard } from '../helpers/lifecycle.ts';
import { basicOf, chargeBody, chargeCard, nonceFor, postCharge } from '../helpers/payin.ts';
import { call, callOk, dayOf, newCustomer, runScheduleNow, saveCardFor } from '../helpers/stored.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { transferBody } from '../helpers/transfers.ts';

interface Asked {
  readonly call: string;
  readonly reference: string;
  readonly chargeReference?: string;
  readonly storedCredential?: StoredCredential;
}

/** Wraps the service's card processor and payout network in place; returns what they were asked, in order. */
function recordCalls(t: TestApp): { card: Asked[]; payouts: PayoutSubmission[] } {
  const card: Asked[] = [];
  const processor = t.service.providers.cardProcessor as unknown as Record<string, (request: Asked) => Promise<unknown>>;
  for (const name of ['authorize', 'poll', 'capture', 'voidCharge', 'refund', 'verify', 'credit']) {
    const original = processor[name]!.bind(processor);
    processor[name] = (request: Asked) => {
      const { reference, chargeReference, storedCredential } = request;
      card.push({
        call: name,
        reference,
        ...(chargeReference === undefined ? {} : { chargeReference }),
        ...(storedCredential === undefined ? {} : { storedCredential }),
      });
      return original(request);
    };
  }
  const payouts: PayoutSubmission[] = [];
  const network = t.service.providers.payoutNetwork;
  const submit = network.submit.bind(network);
  network.submit = (submission) => {
    payouts.push(submission);
    return submit(submission);
  };
  return { card, payouts };
}

for (const kind of STORE_KINDS) {
  describe(`provider keys and stored credentials (${kind})`, () => {
    let t: TestApp;
    let asked: ReturnType<typeof recordCalls>;
    before(async () => {
      t = await createTestApp(kind);
      asked = recordCalls(t);
    });
    after(() => t.close());

    /** The calls asked since `from`, with the record each key names (null: not a key of this installation). */
    const namedSince = (from: number) =>
      asked.card.slice(from).map((a) => ({ call: a.call, names: t.service.providerKeys.parse(a.reference), charge: a.chargeReference }));
    const key = (kindOf: ProviderKeyKind, pk: number) => t.service.providerKeys.key(kindOf, pk);

    it('charges, captures, refunds, credits and verifications hand the processor keys of this installation', async () => {
      const merchant = await t.newMerchant();
      let from = asked.card.length;
      const sale = await chargeCard(t, merchant, '4111111111111111', 20);
      assert.deepEqual(namedSince(from), [{ call: 'authorize', names: { kind: 'charge', pk: sale }, charge: undefined }]);

      from = asked.card.length;
      const auth = await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant), { amount: 5, capture: false }));
      const authPk = Number(auth.json().reference_number);
      await operateOk(t, merchant, 'capture', { reference_number: authPk });
      assert.deepEqual(
        namedSince(from).map((a) => [a.call, a.names]),
        [
          ['authorize', { kind: 'charge', pk: authPk }],
          ['capture', { kind: 'charge', pk: authPk }],
        ],
      );

      await closeSandboxBatch(t, merchant);
      from = asked.card.length;
      const refund = await operateOk(t, merchant, 'refund', { reference_number: sale, amount: 5 });
      const refundPk = Number(refund.reference_number);
      assert.deepEqual(namedSince(from), [{ call: 'refund', names: { kind: 'charge', pk: refundPk }, charge: key('charge', sale) }]);

      from = asked.card.length;
      const credited = await call(t, merchant, 'POST', '/api/v2/transactions/credit', { source: `ref-${sale}`, amount: 1 });
      assert.equal(credited.statusCode, 200, credited.body);
      const creditPk = Number(credited.json().reference_number);
      assert.deepEqual(namedSince(from), [{ call: 'credit', names: { kind: 'charge', pk: creditPk }, charge: undefined }]);

      from = asked.card.length;
      const verified = await verifyCard(t, merchant);
      assert.equal(verified.statusCode, 200, verified.body);
      assert.deepEqual(namedSince(from), [
        { call: 'verify', names: { kind: 'verification', pk: Number(verified.json().reference_number) }, charge: undefined },
      ]);
      // Every key fits Authorize.net's invoiceNumber: at most 20 characters of [0-9a-z].
      assert.ok(asked.card.every((a) => /^[0-9a-z]{1,20}$/.test(a.reference)));
    });

    it('a transfer is submitted to the payout network under its key of this installation', async () => {
      const merchant = await t.newMerchant({ fundCents: 10_000 });
      const from = asked.payouts.length;
      await executeTransfer(t.service, merchant.merchant_id, transferBody({ amount: '1.00', lastFour: '5678' }));
      await t.worker.drain();
      const submitted = asked.payouts.slice(from);
      assert.equal(submitted.length, 1);
      const named = t.service.providerKeys.parse(submitted[0]!.idempotencyKey);
      assert.equal(named?.kind, 'transfer');
      assert.equal(submitted[0]!.idempotencyKey, key('transfer', named!.pk));
    });

    it('a pending charge authorized before the upgrade (numeric reference in its processor reference) still resolves', async () => {
      const merchant = await t.newMerchant();
      const pk = await chargeCard(t, merchant, '4000000000000259', 3);
      // As an older version recorded it: the bare reference number where the key now is.
      await t.service.db.write((tx) =>
        tx.run("UPDATE charges SET processor_ref = 'sbx_' || CAST(pk AS TEXT) || substr(processor_ref, length(CAST(? AS TEXT)) + 5) WHERE pk = ?", [
          key('charge', pk),
          pk,
        ]),
      );
      const before = await t.service.db.read((tx) => tx.get<{ processor_ref: string }>('SELECT processor_ref FROM charges WHERE pk = ?', [pk]));
      assert.match(before!.processor_ref, new RegExp(`^sbx_${pk}_P_[0-9]+$`));
      t.clock.advance(60 * 60_000);
      await t.worker.drain();
      const after = await t.service.db.read((tx) => tx.get<{ status: string }>('SELECT status FROM charges WHERE pk = ?', [pk]));
      assert.equal(after!.status, 'approved');
    });

    it('records made before the store had an installation id keep the keys they were first sent under; later ones get keys', async () => {
      const merchant = await t.newMerchant({ fundCents: 10_000 });
      const oldCharge = await chargeCard(t, merchant, '4111111111111111', 2);
      await executeTransfer(t.service, merchant.merchant_id, transferBody({ amount: '1.00', lastFour: '5678' }));
      const recorded = await readInstallation(t.service.db);
      // As a store migrated past 022 from an older version: the row is written then, over existing records.
      await t.service.db.write((tx) => tx.run('DELETE FROM installation WHERE singleton = 1'));
      try {
        await t.service.db.migrate();
        const upgraded = await readInstallation(t.service.db);
        assert.notEqual(upgraded.id, recorded.id);
        assert.ok(upgraded.legacyPkMax.charge >= oldCharge && upgraded.legacyPkMax.transfer >= 1, JSON.stringify(upgraded.legacyPkMax));
        const keys = providerKeysOf(upgraded.id, upgraded.legacyPkMax);
        assert.equal(keys.key('charge', oldCharge), String(oldCharge));
        assert.equal(keys.key('transfer', upgraded.legacyPkMax.transfer), `transfer-${upgraded.legacyPkMax.transfer}`);
        assert.deepEqual(keys.parse(keys.key('charge', upgraded.legacyPkMax.charge + 1)), { kind: 'charge', pk: upgraded.legacyPkMax.charge + 1 });
        // A new store has nothing older than its id.
        assert.deepEqual(recorded.legacyPkMax, { charge: 0, verification: 0, transfer: 0, receiver: 0 });
      } finally {
        await t.service.db.write((tx) => tx.run('DELETE FROM installation WHERE singleton = 1'));
        await t.service.db.write((tx) =>
          tx.run(
            'INSERT INTO installation (singleton, installation_id, legacy_charge_pk_max, legacy_verification_pk_max, legacy_transfer_pk_max, created_at_ms) VALUES (1, ?, 0, 0, 0, 0)',
            [recorded.id],
          ),
        );
      }
    });

    it('flags kept cards per source and carries the first network transaction id to pm-, schedule and ref- charges', async () => {
      const merchant = await t.newMerchant();
      const authorizations = () => asked.card.filter((a) => a.call === 'authorize');
      const last = () => authorizations().at(-1)!;

      // A one-off card: no flags.
      await chargeCard(t, merchant, '4111111111111111', 2);
      assert.equal(last().storedCredential, undefined);

      // A card saved while charging: the initial use, started by the customer.
      const saving = await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant), { amount: 3, save_card: true }));
      assert.equal(saving.statusCode, 200, saving.body);
      const firstPk = Number(saving.json().reference_number);
      assert.deepEqual(last().storedCredential, { use: 'initial', initiator: 'customer', reason: 'unscheduled', networkTransactionId: null });
      const firstId = sandboxNetworkTransactionId(key('charge', firstPk));

      // The card saved from that transaction keeps its network id for every later use.
      const customer = await newCustomer(t, merchant);
      const method = await callOk(t, merchant, 'POST', `/api/v2/customers/${customer.id}/payment-methods`, { source: `ref-${firstPk}` }, 201);
      const pmCharge = await postCharge(t.app, basicOf(merchant), { source: `pm-${method.id}`, amount: 4 });
      assert.equal(pmCharge.statusCode, 200, pmCharge.body);
      assert.deepEqual(last().storedCredential, { use: 'subsequent', initiator: 'customer', reason: 'unscheduled', networkTransactionId: firstId });

      const schedule = await callOk(
        t,
        merchant,
        'POST',
        `/api/v2/customers/${customer.id}/recurring-schedules`,
        { title: 'Plan', amount: 5, frequency: 'monthly', next_run_date: dayOf(t), num_left: 0, payment_method_id: method.id },
        201,
      );
      assert.equal((await runScheduleNow(t, merchant, schedule.id)).statusCode, 200);
      assert.deepEqual(last().storedCredential, { use: 'subsequent', initiator: 'merchant', reason: 'recurring', networkTransactionId: firstId });

      const byRef = await postCharge(t.app, basicOf(merchant), { source: `ref-${firstPk}`, amount: 1 });
      assert.equal(byRef.statusCode, 200, byRef.body);
      assert.deepEqual(last().storedCredential, { use: 'subsequent', initiator: 'merchant', reason: 'unscheduled', networkTransactionId: firstId });

      // A card saved from a nonce has no id until its first approved charge records one.
      const fresh = await saveCardFor(t, merchant, customer.id, '5555555555554444');
      const firstOfMethod = await postCharge(t.app, basicOf(merchant), { source: `pm-${fresh.id}`, amount: 2 });
      assert.equal(last().storedCredential?.networkTransactionId, null);
      const recorded = sandboxNetworkTransactionId(key('charge', Number(firstOfMethod.json().reference_number)));
      await postCharge(t.app, basicOf(merchant), { source: `pm-${fresh.id}`, amount: 2 });
      assert.equal(last().storedCredential?.networkTransactionId, recorded);
    });
  });
}
