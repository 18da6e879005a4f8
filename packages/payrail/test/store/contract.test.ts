// The store contract, run against SQLite and PostgreSQL alike: migrations,
// group commit with per-operation rollback, read-after-commit, snapshot
// reads, the ledger's atomic floor, the uniqueness of postings per record and
// state change, and a verifier that stays right while money moves.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import postgres from 'postgres';
import { merchantAccount, OPERATOR_FUNDING_ACCOUNT } from '../../src/domain/ledger.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import type { Tx } from '../../src/store/db.ts';
import type { SqliteDb } from '../../src/store/sqlite.ts';
import { createAccount, getAccount, post, postBatch } from '../../src/store/ledger.ts';
import { type ExecuteWrite, recordExecute } from '../../src/store/transfers/execute-rule.ts';
import { createStore, STORE_KINDS, TEST_DATABASE_URL, type TestStore } from '../helpers/stores.ts';

const NOW_MS = Date.UTC(2026, 0, 1);

for (const kind of STORE_KINDS) {
  describe(`store contract (${kind})`, () => {
    let store: TestStore;
    before(async () => {
      store = await createStore(kind);
    });
    after(async () => {
      await store.dispose();
    });

    it('applies migrations once', async () => {
      assert.equal(await store.db.migrate(), 0);
      const row = await store.db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM schema_migrations'));
      assert.ok(Number(row?.n) >= 1);
    });

    it('commits concurrent operations and rolls back a failing one alone', async () => {
      await store.db.write((tx) => tx.run("INSERT INTO settings (key, value) VALUES ('seed', 'x')"));
      const results = await Promise.allSettled([
        store.db.write((tx) => tx.run("INSERT INTO settings (key, value) VALUES ('a', '1')")),
        store.db.write(async (tx) => {
          await tx.run("INSERT INTO settings (key, value) VALUES ('b', '2')");
          throw new Error('boom');
        }),
        store.db.write((tx) => tx.run("INSERT INTO settings (key, value) VALUES ('seed', 'dup')")),
        store.db.write((tx) => tx.run("INSERT INTO settings (key, value) VALUES ('c', '3')")),
      ]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'rejected', 'fulfilled'],
      );
      assert.match(String((results[1] as PromiseRejectedResult).reason), /boom/);
      const keys = await store.db.read((tx) => tx.all<{ key: string; value: string }>('SELECT key, value FROM settings ORDER BY key'));
      assert.deepEqual(keys, [
        { key: 'a', value: '1' },
        { key: 'c', value: '3' },
        { key: 'seed', value: 'x' },
      ]);
    });

    it('runs the other operations of a batch once when one is refused before writing, and takes back one refused after writing', async () => {
      const runs = new Map<string, number>();
      const counted = (name: string, work: (tx: Tx) => Promise<unknown>) => (tx: Tx) => {
        runs.set(name, (runs.get(name) ?? 0) + 1);
        return work(tx);
      };
      const runAgainBefore = kind === 'sqlite' ? (store.db as SqliteDb).batchesRunAgain : 0;
      // Issued in one turn: one batch.
      const clean = await Promise.allSettled([
        store.db.write(counted('p1', (tx) => tx.run("INSERT INTO settings (key, value) VALUES ('p1', '1')"))),
        store.db.write(
          counted('refused', async (tx) => {
            await tx.get("SELECT value FROM settings WHERE key = 'p1'");
            await tx.run("UPDATE settings SET value = 'never' WHERE key = 'no such key'");
            throw new Error('refused before writing');
          }),
        ),
        store.db.write(counted('p2', (tx) => tx.run("INSERT INTO settings (key, value) VALUES ('p2', '2')"))),
      ]);
      assert.deepEqual(
        clean.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.deepEqual(Object.fromEntries(runs), { p1: 1, refused: 1, p2: 1 });
      if (kind === 'sqlite') assert.equal((store.db as SqliteDb).batchesRunAgain, runAgainBefore);

      runs.clear();
      const unclean = await Promise.allSettled([
        store.db.write(counted('q1', (tx) => tx.run("INSERT INTO settings (key, value) VALUES ('q1', '1')"))),
        store.db.write(
          counted('undone', async (tx) => {
            await tx.run("UPDATE settings SET value = 'changed' WHERE key = 'p1'");
            await tx.run("INSERT INTO settings (key, value) VALUES ('undone', 'x')");
            throw new Error('refused after writing');
          }),
        ),
        store.db.write(counted('q2', (tx) => tx.run("INSERT INTO settings (key, value) VALUES ('q2', '2')"))),
      ]);
      assert.deepEqual(
        unclean.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.match(String((unclean[1] as PromiseRejectedResult).reason), /refused after writing/);
      const rows = await store.db.read((tx) =>
        tx.all<{ key: string; value: string }>("SELECT key, value FROM settings WHERE key IN ('p1', 'p2', 'q1', 'q2', 'undone') ORDER BY key"),
      );
      assert.deepEqual(rows, [
        { key: 'p1', value: '1' },
        { key: 'p2', value: '2' },
        { key: 'q1', value: '1' },
        { key: 'q2', value: '2' },
      ]);
      if (kind === 'sqlite') {
        // The batch was taken back whole at the failure and run again, each operation in a savepoint.
        assert.equal((store.db as SqliteDb).batchesRunAgain, runAgainBefore + 1);
        assert.deepEqual(Object.fromEntries(runs), { q1: 2, undone: 2, q2: 1 });
      }
    });

    it('returns each operation its own value in order', async () => {
      const values = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          store.db.write(async (tx) => {
            await tx.run('INSERT INTO settings (key, value) VALUES (?, ?)', [`k${i}`, String(i)]);
            return i;
          }),
        ),
      );
      assert.deepEqual(
        values,
        Array.from({ length: 300 }, (_, i) => i),
      );
      const count = await store.db.read((tx) => tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM settings WHERE key LIKE 'k%'"));
      assert.equal(Number(count?.n), 300);
    });

    it('inserts a row and returns its pk; a duplicate of the named key gives null, the transaction goes on, any other refusal is an error', async () => {
      const key = kind === 'sqlite' ? 'INTEGER PRIMARY KEY AUTOINCREMENT' : 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY';
      await store.db.write((tx) => tx.run(`CREATE TABLE insert_probe (pk ${key}, a TEXT NOT NULL, b TEXT NOT NULL, c TEXT NOT NULL UNIQUE, UNIQUE (a, b))`));
      const sql = 'INSERT INTO insert_probe (a, b, c) VALUES (?, ?, ?)';
      const first = await store.db.write((tx) => tx.insert(sql, ['a1', 'b1', 'c1'], 'a, b'));
      const second = await store.db.write((tx) => tx.insert(sql, ['a1', 'b2', 'c2']));
      assert.equal(typeof first, 'number');
      assert.ok(second! > first!, `${second} follows ${first}`);
      // In one operation: the duplicate is refused quietly and the next insert still lands.
      const [duplicate, third] = await store.db.write(async (tx) => [
        await tx.insert(sql, ['a1', 'b1', 'c3'], 'a, b'),
        await tx.insert(sql, ['a3', 'b3', 'c3'], 'a,b'),
      ]);
      assert.equal(duplicate, null);
      assert.ok(third! > second!);
      await assert.rejects(
        store.db.write((tx) => tx.insert(sql, ['a4', 'b4', 'c1'], 'a, b')),
        /unique|duplicate/i,
        'another unique key refused: an error',
      );
      await assert.rejects(
        store.db.write((tx) => tx.insert(sql, ['a1', 'b1', 'c5'])),
        /unique|duplicate/i,
        'no key named: an error',
      );
      const rows = await store.db.read((tx) => tx.all<{ pk: number; a: string; c: string }>('SELECT pk, a, c FROM insert_probe ORDER BY pk'));
      assert.deepEqual(
        rows.map((r) => [Number(r.pk), r.a, r.c]),
        [
          [first, 'a1', 'c1'],
          [second, 'a1', 'c2'],
          [third, 'a3', 'c3'],
        ],
      );
      await store.db.write((tx) => tx.run('DROP TABLE insert_probe'));
    });

    it('keeps 64-bit integers exact within the safe range', async () => {
      const big = 2 ** 53 - 1;
      await store.db.write((tx) => createAccount(tx, { id: 'test:big', merchantId: null, kind: 'test', floorCents: -big, nowMs: NOW_MS }));
      const account = await store.db.read((tx) => getAccount(tx, 'test:big'));
      assert.equal(account?.floor_cents, -big);
    });

    it('reads one snapshot: a write committed during readSnapshot stays out of it, while plain reads see it', async () => {
      await store.db.write((tx) => tx.run("INSERT INTO settings (key, value) VALUES ('snapshot', 'before')"));
      const value = (tx: Tx) => tx.get<{ value: string }>("SELECT value FROM settings WHERE key = 'snapshot'").then((row) => row?.value);
      const seen = await store.db.readSnapshot(async (tx) => {
        const first = await value(tx);
        await store.db.write((w) => w.run("UPDATE settings SET value = 'after' WHERE key = 'snapshot'"));
        return { first, plain: await store.db.read(value), second: await value(tx) };
      });
      assert.deepEqual(seen, { first: 'before', plain: 'after', second: 'before' });
      assert.equal(await store.db.readSnapshot(value), 'after');
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

    describe('execute write', () => {
      const MERCHANT = 'm_exec';
      const write = (id: string, amountCents: number): ExecuteWrite => ({
        transfer: {
          merchant_id: MERCHANT,
          id,
          sender_phone: '+14155550100',
          receiver_phone: '+254712345678',
          amount_cents: amountCents,
          service: '1001',
          receiver_country: 'KE',
          receiver_currency: 'KES',
          fx_rate: '129.5',
          received_minor: amountCents * 129,
          attributes_json: '[]',
          substate: 0,
          waiting_for: null,
          next_run_at_ms: NOW_MS,
          invitation_expires_at_ms: null,
          gateway_charge_pk: null,
          created_at_ms: NOW_MS,
        },
        posting: {
          kind: 'transfer.execute',
          debitAccountId: merchantAccount(MERCHANT, 'available'),
          creditAccountId: merchantAccount(MERCHANT, 'in_flight'),
          amountCents,
          merchantId: MERCHANT,
          nowMs: NOW_MS,
        },
        note: 'created',
        events: [
          { type: 'transfer.created', dataJson: JSON.stringify({ id }) },
          { type: 'transfer.waiting', dataJson: JSON.stringify({ id }) },
        ],
      });
      /** Like execute: a refusal fails the operation, so nothing it wrote survives. */
      const execute = (id: string, amountCents: number) =>
        store.db.write(async (tx) => {
          const outcome = await recordExecute(tx, write(id, amountCents));
          if (outcome.kind !== 'recorded') throw new Error(outcome.kind);
          return outcome.pk;
        });
      const balances = () =>
        store.db.read(async (tx) => [
          (await getAccount(tx, merchantAccount(MERCHANT, 'available')))?.balance_cents,
          (await getAccount(tx, merchantAccount(MERCHANT, 'in_flight')))?.balance_cents,
        ]);
      const counts = () =>
        store.db.read((tx) =>
          tx.get<{ transfers: number; postings: number; history: number; events: number }>(
            `SELECT (SELECT COUNT(*) FROM transfers WHERE merchant_id = ?) AS transfers,
               (SELECT COUNT(*) FROM postings WHERE merchant_id = ?) AS postings,
               (SELECT COUNT(*) FROM transfer_events e JOIN transfers t ON t.pk = e.transfer_pk WHERE t.merchant_id = ?) AS history,
               (SELECT COUNT(*) FROM events WHERE merchant_id = ?) AS events`,
            [MERCHANT, MERCHANT, MERCHANT, MERCHANT],
          ),
        );

      before(async () => {
        await store.db.write(async (tx) => {
          await tx.run("INSERT INTO merchants (id, name, created_at_ms) VALUES (?, 'Exec', ?)", [MERCHANT, NOW_MS]);
          await createAccount(tx, { id: merchantAccount(MERCHANT, 'available'), merchantId: MERCHANT, kind: 'available', floorCents: 0, nowMs: NOW_MS });
          await createAccount(tx, { id: merchantAccount(MERCHANT, 'in_flight'), merchantId: MERCHANT, kind: 'in_flight', floorCents: null, nowMs: NOW_MS });
          await post(tx, {
            kind: 'merchant.fund',
            debitAccountId: OPERATOR_FUNDING_ACCOUNT,
            creditAccountId: merchantAccount(MERCHANT, 'available'),
            amountCents: 1_000,
            merchantId: MERCHANT,
            refId: 'fund_exec',
            nowMs: NOW_MS,
          });
        });
      });

      it('records executes up to the floor, refuses duplicates, and leaves nothing of a refusal', async () => {
        // 1,000 of room: 10 of the 12 distinct ids fit; 'e0' is sent three times (one batch).
        const ids = [...Array.from({ length: 12 }, (_, i) => `e${i}`), 'e0', 'e0'];
        const outcomes = await Promise.allSettled(ids.map((id) => execute(id, 100)));
        const refusals = outcomes.map((o) => (o.status === 'fulfilled' ? 'recorded' : String((o.reason as Error).message)));
        assert.equal(refusals.filter((r) => r === 'recorded').length, 10);
        assert.equal(refusals.filter((r) => r === 'below_floor').length, 2);
        assert.equal(refusals.filter((r) => r === 'duplicate').length, 2);
        assert.deepEqual(await balances(), [0, 1_000]);
        assert.deepEqual(await counts(), { transfers: 10, postings: 11, history: 10, events: 20 });
        const pk = await store.db.read((tx) => tx.get<{ pk: number }>('SELECT pk FROM transfers WHERE merchant_id = ? AND id = ?', [MERCHANT, 'e1']));
        const posting = await store.db.read((tx) =>
          tx.get<{ ref_type: string; ref_id: string }>("SELECT ref_type, ref_id FROM postings WHERE kind = 'transfer.execute' AND ref_id = ?", [
            String(pk?.pk),
          ]),
        );
        assert.deepEqual({ ...posting }, { ref_type: 'transfer', ref_id: String(pk?.pk) });
        const events = await store.db.read((tx) =>
          tx.all<{ type: string }>('SELECT type FROM events WHERE merchant_id = ? AND data_json = ? ORDER BY pk', [MERCHANT, JSON.stringify({ id: 'e1' })]),
        );
        assert.deepEqual(
          events.map((e) => e.type),
          ['transfer.created', 'transfer.waiting'],
        );
        assert.deepEqual((await verifyLedger(store.db)).problems, []);
      });

      if (kind === 'postgres') {
        it('rolls back the debit when the id is taken by a commit it waited for', async () => {
          await store.db.write((tx) =>
            post(tx, {
              kind: 'merchant.fund',
              debitAccountId: OPERATOR_FUNDING_ACCOUNT,
              creditAccountId: merchantAccount(MERCHANT, 'available'),
              amountCents: 100,
              merchantId: MERCHANT,
              refId: 'fund_race',
              nowMs: NOW_MS,
            }),
          );
          const before = await balances();
          const schema = /search_path%3D([a-z0-9_]+)/.exec(store.env.DATABASE_URL!)![1]!;
          const other = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => undefined, connection: { search_path: schema } });
          try {
            let racing: Promise<number> | undefined;
            await other.begin(async (sql) => {
              // Holds the balance row, then makes the id: the execute's debit waits for this commit, made before its statement began.
              await sql.unsafe('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [merchantAccount(MERCHANT, 'available')]);
              await sql.unsafe(
                `INSERT INTO transfers (merchant_id, id, sender_phone, receiver_phone, amount_cents, service, receiver_country, receiver_currency, fx_rate, received_minor, attributes_json, state, substate, created_at_ms, updated_at_ms)
                 VALUES ($1, 'race', '+1', '+2', 100, '1001', 'KE', 'KES', '1', 1, '[]', 0, 0, 0, 0)`,
                [MERCHANT],
              );
              racing = execute('race', 100);
              racing.catch(() => undefined);
              await new Promise((resolve) => setTimeout(resolve, 200));
            });
            await assert.rejects(racing!, /duplicate/);
          } finally {
            await other.end();
          }
          assert.deepEqual(await balances(), before);
          await store.db.write((tx) => tx.run("DELETE FROM transfers WHERE merchant_id = ? AND id = 'race'", [MERCHANT]));
          assert.deepEqual((await verifyLedger(store.db)).problems, []);
        });
      }
    });
  });
}
