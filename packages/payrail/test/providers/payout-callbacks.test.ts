// Payout callbacks (behaviour.md section 18) through a connector module that
// takes signed callbacks and answers polls as the test says
// (test/helpers/callback-payout-network.ts). A verified callback names a
// payout by Payrail's reference (its key or the key's UUID form) or by the
// network's reference; the transfer is re-read from its network and the
// answer recorded by the worker's own guarded step: once, whoever (worker
// or callback) gets there first; a replayed or late callback changes
// nothing; a callback never submits; a bad signature changes nothing. A
// completed payout the network then reports taken back is recorded as a
// reversal for the operator, once. Both stores.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { advanceOneTransfer } from '../../src/flows/transfers/advance.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import {
  gate,
  outcomes,
  PAYOUT_CONNECTOR_NAME,
  PAYOUT_SIGNATURE_HEADER,
  payoutSignatureOf,
  polled,
  pollsReached,
  resetPayoutNetwork,
  submitted,
  taken,
} from '../helpers/callback-payout-network.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { assertLedgerOk, balances, caller, created, events, statusBody, transferBody, transferPk } from '../helpers/transfers.ts';

const CONNECTOR = path.join(import.meta.dirname, '..', 'helpers', 'callback-payout-network.ts');

for (const kind of STORE_KINDS) {
  describe(`payout callbacks (${kind})`, () => {
    let t: TestApp;
    let merchant: CreatedMerchant;
    let api: ReturnType<typeof caller>;

    before(async () => {
      t = await createTestApp(kind, { env: { PAYRAIL_PAYOUT_NETWORK: CONNECTOR } });
      merchant = await t.newMerchant({ fundCents: 1_000_000 });
      api = caller(t.app, merchant.transfer_api_key);
    });
    beforeEach(() => resetPayoutNetwork());
    after(() => t.close());

    const send = (body: string, signature = payoutSignatureOf(body)) =>
      t.app.inject({
        method: 'POST',
        url: `/providers/${PAYOUT_CONNECTOR_NAME}/callbacks`,
        headers: { 'content-type': 'application/json', [PAYOUT_SIGNATURE_HEADER]: signature },
        payload: body,
      });

    /** A transfer the network took (40/1), with its pk, Payrail's key and UUID, and the network's reference. */
    const atNetwork = async (amount = '10.00') => {
      const body = transferBody({ amount });
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
      await t.worker.drain();
      const pk = await transferPk(t.service, merchant.merchant_id, body.id);
      const key = t.service.providerKeys.key('transfer', pk);
      const uuid = t.service.providerKeys.uuid('transfer', pk);
      const ref = taken.get(key)!;
      assert.ok(ref !== undefined, 'the network took the payout');
      assert.deepEqual(await events(t.service, merchant.merchant_id, body.id), [
        [0, 0],
        [40, 1],
      ]);
      return { id: body.id, pk, key, uuid, ref, cents: Math.round(Number(amount) * 100) };
    };
    const stateOf = async (id: string) => {
      const result = ((await api.status(id)).body as { status: { result: { state: number; substate: number; final: number; attribute: unknown[] } } }).status
        .result;
      return result;
    };
    const eventCount = async (type: string, id: string) =>
      Number(
        (await t.service.db.read((tx) =>
          tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM events WHERE merchant_id = ? AND type = ? AND data_json LIKE ?', [
            merchant.merchant_id,
            type,
            `%"id":"${id}"%`,
          ]),
        ))!.n,
      );
    const postingCount = async (pk: number, postingKind: string) =>
      Number(
        (await t.service.db.read((tx) =>
          tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM postings WHERE ref_type = 'transfer' AND ref_id = ? AND kind = ?", [String(pk), postingKind]),
        ))!.n,
      );

    it('a callback naming the payout by its UUID applies the completion once; a replay and a late callback change nothing', async () => {
      const tr = await atNetwork('12.00');
      const start = await balances(t.service, merchant.merchant_id);
      const callback = JSON.stringify({ providerRef: tr.ref, reference: tr.uuid });

      // Still pending at the network: asked, nothing recorded.
      const early = await send(callback);
      assert.equal(early.statusCode, 200, early.body);
      assert.deepEqual(early.json(), { received: true });
      assert.deepEqual(polled, [tr.ref]);
      assert.equal((await stateOf(tr.id)).state, 40);

      outcomes.set(tr.ref, { kind: 'succeeded', transactionRef: 'TPN-TX-1' });
      assert.equal((await send(callback)).statusCode, 200);
      assert.deepEqual(await api.status(tr.id), {
        status: 200,
        body: statusBody(tr.id, { state: 60, substate: 0, final: 1, serverTimeMs: t.clock.nowMs(), trans: 'TPN-TX-1', sum_prov: '1551.00' }),
      });
      const paid = { ...start, in_flight: start.in_flight - 1200, paid_out: start.paid_out + 1200 };
      assert.deepEqual(await balances(t.service, merchant.merchant_id), paid);

      // The same callback again, and a late one about the earlier (pending) state.
      assert.equal((await send(callback)).statusCode, 200);
      assert.equal((await send(JSON.stringify({ providerRef: tr.ref, reference: null, status: 'SUBMITTED' }))).statusCode, 200);
      assert.deepEqual(await events(t.service, merchant.merchant_id, tr.id), [
        [0, 0],
        [40, 1],
        [60, 0],
      ]);
      assert.equal(await eventCount('transfer.succeeded', tr.id), 1);
      assert.equal(await postingCount(tr.pk, 'transfer.succeed'), 1);
      assert.deepEqual(await balances(t.service, merchant.merchant_id), paid);
      // The worker finds nothing left to do for it; no callback submitted anything.
      t.clock.advance(60 * 60_000);
      await t.worker.drain();
      assert.deepEqual(submitted, [tr.key]);
      await assertLedgerOk(t.service);
    });

    it("a callback with only the network's reference finds the transfer by it; one naming Payrail's key does too", async () => {
      const byRef = await atNetwork();
      const byKey = await atNetwork();
      outcomes.set(byRef.ref, { kind: 'failed', errorText: 'Receiver wallet limit reached', errorCode: 'LIMIT' });
      outcomes.set(byKey.ref, { kind: 'succeeded', transactionRef: 'TPN-TX-2' });
      assert.equal((await send(JSON.stringify({ providerRef: byRef.ref }))).statusCode, 200);
      assert.equal((await send(JSON.stringify({ providerRef: 'anything', reference: byKey.key }))).statusCode, 200);
      const failed = await stateOf(byRef.id);
      assert.deepEqual([failed.state, failed.substate, failed.final], [80, 5, 1]);
      assert.deepEqual(failed.attribute, [
        { name: 'provider-error-text', value: 'Receiver wallet limit reached' },
        { name: 'provider-error-code', value: 'LIMIT' },
      ]);
      assert.equal((await stateOf(byKey.id)).state, 60);
      // An unknown reference and a ping change nothing and are still answered 200 (the network must not retry them).
      assert.equal((await send(JSON.stringify({ providerRef: 'tpn-unknown' }))).statusCode, 200);
      assert.equal((await send(JSON.stringify({ ping: true }))).statusCode, 200);
      await assertLedgerOk(t.service);
    });

    it('a callback with a bad signature is refused and asks nothing', async () => {
      const tr = await atNetwork();
      outcomes.set(tr.ref, { kind: 'succeeded', transactionRef: 'TPN-TX-3' });
      const body = JSON.stringify({ providerRef: tr.ref, reference: tr.uuid });
      const refused = await send(body, payoutSignatureOf(body, 'another-key'));
      assert.equal(refused.statusCode, 401);
      assert.deepEqual(polled, []);
      assert.equal((await stateOf(tr.id)).state, 40);
    });

    it('a callback and the worker that learn one outcome at once record it once', async () => {
      const tr = await atNetwork('7.00');
      const start = await balances(t.service, merchant.merchant_id);
      outcomes.set(tr.ref, { kind: 'succeeded', transactionRef: 'TPN-TX-4' });
      t.clock.advance(60 * 60_000);
      // Both ask the network before either records: the network answers them together.
      let open = () => {};
      gate.next = new Promise((resolve) => (open = resolve));
      const body = JSON.stringify({ providerRef: tr.ref, reference: tr.uuid });
      const racing = Promise.all([send(body), t.worker.drain(), advanceOneTransfer(t.service, tr.pk)]);
      await pollsReached(3);
      gate.next = null;
      open();
      const [reply, , single] = await racing;
      assert.equal(reply.statusCode, 200);
      assert.ok(['applied', 'raced'].includes(single), single);
      assert.deepEqual(await events(t.service, merchant.merchant_id, tr.id), [
        [0, 0],
        [40, 1],
        [60, 0],
      ]);
      assert.equal(await eventCount('transfer.succeeded', tr.id), 1);
      assert.equal(await postingCount(tr.pk, 'transfer.succeed'), 1);
      assert.deepEqual(await balances(t.service, merchant.merchant_id), { ...start, in_flight: start.in_flight - 700, paid_out: start.paid_out + 700 });
      await assertLedgerOk(t.service);
    });

    it('a completed payout the network reports taken back is recorded as a reversal once; no money moves until the operator confirms', async () => {
      const tr = await atNetwork('9.00');
      outcomes.set(tr.ref, { kind: 'succeeded', transactionRef: 'TPN-TX-5' });
      assert.equal((await send(JSON.stringify({ providerRef: tr.ref, reference: tr.uuid }))).statusCode, 200);
      const paid = await balances(t.service, merchant.merchant_id);

      outcomes.set(tr.ref, { kind: 'reversed', errorText: 'Credit reversed by the wallet operator', errorCode: 'REVERSED' });
      const body = JSON.stringify({ providerRef: tr.ref, reference: tr.uuid });
      assert.equal((await send(body)).statusCode, 200);
      const status = await stateOf(tr.id);
      assert.deepEqual([status.state, status.substate, status.final], [60, 0, 1]);
      assert.deepEqual(status.attribute, [{ name: 'reversed', value: 'reported' }]);
      assert.deepEqual(await balances(t.service, merchant.merchant_id), paid);

      // Replayed: the reversal is known, the network is not asked again, nothing is added.
      const pollsBefore = polled.length;
      assert.equal((await send(body)).statusCode, 200);
      assert.equal(polled.length, pollsBefore);
      const rows = await t.service.db.read((tx) =>
        tx.all<{ state: string; source: string; network_error_code: string; reported_by: string }>(
          'SELECT state, source, network_error_code, reported_by FROM transfer_reversals WHERE transfer_pk = ?',
          [tr.pk],
        ),
      );
      assert.deepEqual(
        rows.map((r) => ({ ...r })),
        [{ state: 'reported', source: 'network', network_error_code: 'REVERSED', reported_by: `network:${CONNECTOR}` }],
      );
      const audits = await t.service.db.read((tx) =>
        tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM audit_events WHERE action = 'transfer.reversal_report' AND target = ?", [tr.id]),
      );
      assert.equal(Number(audits!.n), 1);
      assert.equal(await eventCount('transfer.reversed', tr.id), 0);
      await assertLedgerOk(t.service);
    });

    it('a failed answer for a transfer Payrail recorded as paid out is reported as a reversal too', async () => {
      const tr = await atNetwork();
      outcomes.set(tr.ref, { kind: 'succeeded', transactionRef: 'TPN-TX-6' });
      assert.equal(await advanceOneTransfer(t.service, tr.pk), 'applied');
      assert.equal(await advanceOneTransfer(t.service, tr.pk), 'final');
      outcomes.set(tr.ref, { kind: 'failed', errorText: 'Payout failed', errorCode: 'FAILED' });
      assert.equal(await advanceOneTransfer(t.service, tr.pk), 'reversal-reported');
      assert.equal(await advanceOneTransfer(t.service, tr.pk), 'reversal-known');
      assert.deepEqual((await stateOf(tr.id)).attribute, [{ name: 'reversed', value: 'reported' }]);
    });
  });
}
