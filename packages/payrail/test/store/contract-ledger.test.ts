// The store contract's ledger, on SQLite and PostgreSQL alike: the atomic
// floor, the uniqueness of postings per record and state change, and a
// verifier that stays right while money moves.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OPERATOR_FUNDING_ACCOUNT } from '../../src/domain/ledger.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { createAccount, getAccount, post, postBatch } from '../../src/store/ledger.ts';
import { createStore, STORE_KINDS, type TestStore } from '../helpers/stores.ts';

const NOW_MS = Date.UTC(2026, 0, 1);

for (const kind of STORE_KINDS) {
  describe(`store contract: ledger (${kind})`, () => {
    let store: TestStore;
    before(async () => {
      store = await createStore(kind);
    });
    after(async () => {
      await store.dispose();
    });

    describe('ledger', () => {
      before(async () => {
        await store.db.write(async (tx) => {
          await createAccount(tx, { id: OPERATOR_FUNDING_ACCOUNT, merchantId: null, kind: 'operator_funding', floorCents: null, nowMs: NOW_MS });
          await createAccount(tx, { id: 'test:a', merchantId: null, kind: 'test', floorCents: -5_000, nowMs: NOW_MS });
          await createAccount(tx, { id: 'test:b', merchantId: null, kind: 'test', floorCents: null, nowMs: NOW_MS });
          const funded = await post(tx, {
            kind: 'merchant.fund',
            debitAccountId: OPERATOR_FUNDING_ACCOUNT,
            creditAccountId: 'test:a',
            amountCents: 10_000,
            merchantId: null,
            refId: 'fund_seed',
            nowMs: NOW_MS,
          });
          assert.equal(funded, 'posted');
        });
      });

      it('lets 200 concurrent debits pass only up to the floor', async () => {
        // 10,000 balance + 5,000 overdraft = room for exactly 150 debits of 100.
        const outcomes = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            store.db.write((tx) =>
              post(tx, {
                kind: 'merchant.fund',
                debitAccountId: 'test:a',
                creditAccountId: 'test:b',
                amountCents: 100,
                merchantId: null,
                refId: `debit_${i}`,
                nowMs: NOW_MS,
              }),
            ),
          ),
        );
        assert.equal(outcomes.filter((o) => o === 'posted').length, 150);
        assert.equal(outcomes.filter((o) => o === 'below_floor').length, 50);
        const a = await store.db.read((tx) => getAccount(tx, 'test:a'));
        const b = await store.db.read((tx) => getAccount(tx, 'test:b'));
        assert.equal(a?.balance_cents, -5_000);
        assert.equal(b?.balance_cents, 15_000);
        const report = await verifyLedger(store.db);
        assert.deepEqual(report.problems, []);
        assert.equal(report.ok, true);
      });

      it('refuses a debit below the floor when the credit account sorts first, leaving both unchanged', async () => {
        // The credit side is locked first here (test:b < test:y), so the refusal must take the credit back.
        await store.db.write((tx) => createAccount(tx, { id: 'test:y', merchantId: null, kind: 'test', floorCents: 0, nowMs: NOW_MS }));
        const outcome = await store.db.write((tx) =>
          post(tx, {
            kind: 'merchant.fund',
            debitAccountId: 'test:y',
            creditAccountId: 'test:b',
            amountCents: 1,
            merchantId: null,
            refId: 'reverse_1',
            nowMs: NOW_MS,
          }),
        );
        assert.equal(outcome, 'below_floor');
        assert.equal((await store.db.read((tx) => getAccount(tx, 'test:b')))?.balance_cents, 15_000);
        assert.equal((await store.db.read((tx) => getAccount(tx, 'test:y')))?.balance_cents, 0);
        assert.equal((await verifyLedger(store.db)).ok, true);
      });

      it('refuses a posting naming an unknown account, on either side, and moves no balance', async () => {
        const before = (await store.db.read((tx) => getAccount(tx, 'test:b')))?.balance_cents;
        for (const [debitAccountId, creditAccountId] of [
          ['test:b', 'test:missing'],
          ['test:missing', 'test:b'],
        ] as const) {
          await assert.rejects(
            store.db.write((tx) =>
              post(tx, { kind: 'merchant.fund', debitAccountId, creditAccountId, amountCents: 1, merchantId: null, refId: 'unknown_1', nowMs: NOW_MS }),
            ),
            /unknown .*account/,
          );
        }
        assert.equal((await store.db.read((tx) => getAccount(tx, 'test:b')))?.balance_cents, before);
        assert.equal((await verifyLedger(store.db)).ok, true);
      });

      it('posts a batch: each balance moves once by its net change, a floor is checked against that and refuses the batch', async () => {
        await store.db.write(async (tx) => {
          await createAccount(tx, { id: 'test:w', merchantId: null, kind: 'test', floorCents: null, nowMs: NOW_MS });
          await createAccount(tx, { id: 'test:z', merchantId: null, kind: 'test', floorCents: 0, nowMs: NOW_MS });
        });
        const balance = async (id: string) => Number((await store.db.read((tx) => getAccount(tx, id)))!.balance_cents);
        const movement = (debitAccountId: string, creditAccountId: string, amountCents: number, refId: string) =>
          ({ kind: 'merchant.fund', debitAccountId, creditAccountId, amountCents, merchantId: null, refId, nowMs: NOW_MS }) as const;
        const w = await balance('test:w');
        // test:z (floor 0, balance 0) pays 250 out of the 300 it receives in the same batch.
        const posted = await store.db.write((tx) =>
          postBatch(tx, [movement('test:w', 'test:z', 300, 'batch_1'), movement('test:z', 'test:w', 250, 'batch_2')]),
        );
        assert.equal(posted, 'posted');
        assert.equal(await balance('test:w'), w - 50);
        assert.equal(await balance('test:z'), 50);
        // Net -60 would take test:z to -10: refused, and the caller's failed transaction takes the whole batch back.
        await assert.rejects(
          store.db.write(async (tx) => {
            const refused = await postBatch(tx, [movement('test:z', 'test:w', 100, 'batch_3'), movement('test:w', 'test:z', 40, 'batch_4')]);
            assert.equal(refused, 'below_floor');
            throw new Error('batch refused');
          }),
          /^Error: batch refused$/,
        );
        assert.equal(await balance('test:w'), w - 50);
        assert.equal(await balance('test:z'), 50);
        const refs = await store.db.read((tx) => tx.all<{ ref_id: string }>("SELECT ref_id FROM postings WHERE ref_id LIKE 'batch_%' ORDER BY id"));
        assert.deepEqual(
          refs.map((r) => r.ref_id),
          ['batch_1', 'batch_2'],
        );
        assert.equal((await verifyLedger(store.db)).ok, true);
      });

      it('refuses a second posting of the same kind for the same record', async () => {
        const again = store.db.write((tx) =>
          post(tx, {
            kind: 'merchant.fund',
            debitAccountId: OPERATOR_FUNDING_ACCOUNT,
            creditAccountId: 'test:a',
            amountCents: 1,
            merchantId: null,
            refId: 'fund_seed',
            nowMs: NOW_MS,
          }),
        );
        await assert.rejects(again);
        const a = await store.db.read((tx) => getAccount(tx, 'test:a'));
        assert.equal(a?.balance_cents, -5_000, 'the rejected posting changed nothing');
      });

      it('refuses zero, negative and self postings before touching the store', async () => {
        for (const [amountCents, credit] of [
          [0, 'test:b'],
          [-5, 'test:b'],
          [1.5, 'test:b'],
          [1, 'test:a'],
        ] as const) {
          await assert.rejects(
            store.db.write((tx) =>
              post(tx, {
                kind: 'merchant.fund',
                debitAccountId: 'test:a',
                creditAccountId: credit,
                amountCents,
                merchantId: null,
                refId: `bad_${amountCents}_${credit}`,
                nowMs: NOW_MS,
              }),
            ),
          );
        }
        assert.equal((await verifyLedger(store.db)).ok, true);
      });

      it('verifies one snapshot: a verify during a stream of postings always reports ok', async () => {
        await store.db.write(async (tx) => {
          await createAccount(tx, { id: 'test:c', merchantId: null, kind: 'test', floorCents: null, nowMs: NOW_MS });
          await createAccount(tx, { id: 'test:d', merchantId: null, kind: 'test', floorCents: null, nowMs: NOW_MS });
        });
        const POSTINGS = 600;
        const VERIFIES = 30;
        let written = 0;
        const writes = (async () => {
          // Waves of concurrent postings, so commits keep landing while the verifier reads.
          for (let _wave = 0; written < POSTINGS; _wave++) {
            await Promise.all(
              Array.from({ length: 20 }, (_, i) => {
                const n = written++;
                return store.db.write((tx) =>
                  post(tx, {
                    kind: 'merchant.fund',
                    debitAccountId: n % 2 === 0 ? 'test:c' : 'test:d',
                    creditAccountId: n % 2 === 0 ? 'test:d' : 'test:c',
                    amountCents: 1 + ((n * 7 + i) % 50),
                    merchantId: null,
                    refId: `snapshot_${n}`,
                    nowMs: NOW_MS,
                  }),
                );
              }),
            );
          }
        })();
        const reports: Array<Awaited<ReturnType<typeof verifyLedger>>> = [];
        const verifies = (async () => {
          for (let i = 0; i < VERIFIES; i++) {
            reports.push(await verifyLedger(store.db));
            // Let a group commit run between two verifies (SQLite reads never yield on their own).
            await new Promise((resolve) => setImmediate(resolve));
          }
        })();
        await Promise.all([writes, verifies]);
        assert.deepEqual(
          reports.flatMap((r) => r.problems),
          [],
        );
        assert.ok(reports.every((r) => r.ok));
        assert.ok(new Set(reports.map((r) => r.postings)).size > 1, 'the verifies ran while postings were being written');
      });

      it('detects a posting that names a transfer or charge that does not exist', async () => {
        for (const kind of ['transfer.execute', 'charge.approve'] as const) {
          const refId = '987654321';
          await store.db.write((tx) =>
            post(tx, { kind, debitAccountId: 'test:b', creditAccountId: 'test:a', amountCents: 1, merchantId: null, refId, nowMs: NOW_MS }),
          );
          const report = await verifyLedger(store.db);
          const noun = kind === 'transfer.execute' ? 'transfer' : 'charge';
          assert.ok(
            report.problems.some((p) => p.endsWith(`names ${noun} ${refId}, which does not exist`)),
            report.problems.join('\n'),
          );
          // Undo the planted posting so the following checks start from a verified ledger.
          await store.db.write(async (tx) => {
            await tx.run('DELETE FROM postings WHERE ref_id = ? AND kind = ?', [refId, kind]);
            await tx.run("UPDATE accounts SET balance_cents = balance_cents + 1 WHERE id = 'test:b'");
            await tx.run("UPDATE accounts SET balance_cents = balance_cents - 1 WHERE id = 'test:a'");
          });
        }
        assert.equal((await verifyLedger(store.db)).ok, true);
      });

      it('detects rows whose keys the store does not check on insert: a posting of no account, a transfer of no merchant, history of no transfer', async () => {
        // Migration 011 dropped these foreign keys; the insert would have been refused before it.
        await store.db.write(async (tx) => {
          await tx.run(
            `INSERT INTO postings (debit_account_id, credit_account_id, amount_cents, kind, merchant_id, ref_type, ref_id, created_at_ms)
             VALUES ('test:missing', 'test:a', 1, 'adjustment', NULL, 'adjustment', 'planted', ?)`,
            [NOW_MS],
          );
          await tx.run(
            `INSERT INTO transfers (merchant_id, id, sender_phone, receiver_phone, amount_cents, service, receiver_country, receiver_currency,
               fx_rate, received_minor, attributes_json, state, substate, final, created_at_ms, updated_at_ms)
             VALUES ('mer_missing', 'planted', '+14155550100', '+254712345678', 1, '1001', 'KE', 'KES', '1', 1, '[]', 80, 8, 1, ?, ?)`,
            [NOW_MS, NOW_MS],
          );
          await tx.run('INSERT INTO transfer_events (transfer_pk, state, substate, note, at_ms) VALUES (987654321, 0, 0, ?, ?)', ['planted', NOW_MS]);
        });
        const report = await verifyLedger(store.db);
        const has = (pattern: RegExp) =>
          assert.ok(
            report.problems.some((p) => pattern.test(p)),
            `${pattern}\n${report.problems.join('\n')}`,
          );
        has(/^postings reference unknown account test:missing$/);
        has(/^transfer \d+ names merchant mer_missing, which does not exist$/);
        has(/^transfer history row \d+ names transfer 987654321, which does not exist$/);
        await store.db.write(async (tx) => {
          await tx.run("DELETE FROM postings WHERE ref_id = 'planted'");
          await tx.run("DELETE FROM transfers WHERE id = 'planted'");
          await tx.run("DELETE FROM transfer_events WHERE note = 'planted'");
        });
        assert.equal((await verifyLedger(store.db)).ok, true);
      });

      it('detects a cached balance that differs from its postings', async () => {
        await store.db.write((tx) => tx.run("UPDATE accounts SET balance_cents = balance_cents + 1 WHERE id = 'test:b'"));
        const report = await verifyLedger(store.db);
        assert.equal(report.ok, false);
        assert.ok(
          report.problems.some((p) => p.includes('account test:b: cached balance 15001 != 15000')),
          report.problems.join('\n'),
        );
        assert.ok(report.problems.some((p) => p.includes('balances sum to 1')));
        await store.db.write((tx) => tx.run("UPDATE accounts SET balance_cents = balance_cents - 1 WHERE id = 'test:b'"));
        assert.equal((await verifyLedger(store.db)).ok, true);
      });
    });
  });
}
