// Executes arriving together: on PostgreSQL one statement writes them all
// (store/transfers/execute-batch.ts), on SQLite each is an operation of one
// group commit, and on both what each request gets must be what running
// them one after another would give. A merchant with exactly nine
// transfers' worth of balance receives, at once, fifteen new transfers, the
// same new id twice, and the id of a transfer it already made: exactly nine
// succeed, the old id is a duplicate, the repeated id succeeds at most once,
// every refusal names its reason, and history, events and ledger agree.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Tx } from '../../src/store/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { assertLedgerOk, balances, caller, events, transferBody } from '../helpers/transfers.ts';

for (const kind of STORE_KINDS) {
  describe(`executes arriving together (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(async () => {
      await t.close();
    });

    it('answer what one after another would, with the money exact', async () => {
      const merchant = await t.newMerchant({ fundCents: 1_000 });
      const api = caller(t.app, merchant.transfer_api_key);
      // Count how PostgreSQL groups them (only it has Db.batched; a key's first runAll serves it from then on, so before the first execute).
      const groupSizes: number[] = [];
      const db = t.service.db;
      const batched = db.batched?.bind(db);
      if (batched !== undefined) {
        db.batched = (key, item, runAll) =>
          batched(key, item, (tx: Tx, items) => {
            groupSizes.push(items.length);
            return runAll(tx, items);
          });
      }
      try {
        const earlier = transferBody({ amount: '1.00' });
        assert.equal((await api.execute(earlier)).status, 200);

        const fresh = Array.from({ length: 15 }, () => transferBody({ amount: '1.00' }));
        const twice = transferBody({ amount: '1.00' });
        const bodies = [...fresh, twice, { ...twice }, { ...earlier }];
        const replies = await Promise.all(bodies.map((body) => api.execute(body)));

        const codeOf = (reply: { status: number; body: unknown }) => (reply.status === 200 ? 'ok' : (reply.body as { error: { code: string } }).error.code);
        const codes = replies.map(codeOf);
        assert.equal(codes.filter((c) => c === 'ok').length, 9, `nine fit the balance: ${codes.join(' ')}`);
        assert.equal(codeOf(replies.at(-1)!), 'duplicate_transfer', 'the id made before is a duplicate');
        const twiceCodes = [codeOf(replies[15]!), codeOf(replies[16]!)];
        assert.ok(twiceCodes.filter((c) => c === 'ok').length <= 1, `the repeated id succeeds at most once: ${twiceCodes.join(' ')}`);
        for (const [n, code] of codes.entries()) {
          assert.ok(['ok', 'insufficient_funds', 'duplicate_transfer'].includes(code), `reply ${n}: ${code}`);
          if (code === 'duplicate_transfer') assert.ok(n >= 15, `only a repeated id is a duplicate (reply ${n})`);
        }

        // Each success has its transfer, first history row and events; each refusal left nothing.
        for (const [n, body] of bodies.slice(0, 16).entries()) {
          const history = await events(t.service, merchant.merchant_id, body.id);
          if (codes[n] === 'ok') assert.deepEqual(history, [[0, 0]], `history of ${body.id}`);
          else if (body.id !== twice.id) assert.deepEqual(history, [], `refused ${body.id} left no transfer`);
        }
        const created = await t.service.db.read((tx) =>
          tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM events WHERE merchant_id = ? AND type = 'transfer.created'", [merchant.merchant_id]),
        );
        assert.equal(Number(created?.n), 10, 'one transfer.created event per transfer');
        assert.deepEqual(await balances(t.service, merchant.merchant_id), { available: 0, in_flight: 1_000, paid_out: 0 });
        await assertLedgerOk(t.service);
        if (batched !== undefined) assert.ok(Math.max(...groupSizes) > 1, `several executes shared a statement: ${groupSizes.join(',')}`);
      } finally {
        if (batched !== undefined) db.batched = batched;
      }
    });
  });
}
