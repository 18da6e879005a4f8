// The store contract, run against SQLite and PostgreSQL alike: migrations,
// group commit with per-operation rollback, read-after-commit, the ledger's
// atomic floor, and the uniqueness of postings per record and state change.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OPERATOR_FUNDING_ACCOUNT } from '../src/domain/ledger.ts';
import { verifyLedger } from '../src/flows/ledger-verify.ts';
import { createAccount, getAccount, post } from '../src/store/ledger.ts';
import { createStore, STORE_KINDS, type TestStore } from './helpers/stores.ts';

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

    it('returns each operation its own value in order', async () => {
      const values = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          store.db.write(async (tx) => {
            await tx.run('INSERT INTO settings (key, value) VALUES (?, ?)', [`k${i}`, String(i)]);
            return i;
          }),
        ),
      );
      assert.deepEqual(values, Array.from({ length: 300 }, (_, i) => i));
      const count = await store.db.read((tx) => tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM settings WHERE key LIKE 'k%'"));
      assert.equal(Number(count?.n), 300);
    });

    it('keeps 64-bit integers exact within the safe range', async () => {
      const big = 2 ** 53 - 1;
      await store.db.write((tx) =>
        createAccount(tx, { id: 'test:big', merchantId: null, kind: 'test', floorCents: -big, nowMs: NOW_MS }),
      );
      const account = await store.db.read((tx) => getAccount(tx, 'test:big'));
      assert.equal(account?.floor_cents, -big);
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
          post(tx, { kind: 'merchant.fund', debitAccountId: 'test:y', creditAccountId: 'test:b', amountCents: 1, merchantId: null, refId: 'reverse_1', nowMs: NOW_MS }),
        );
        assert.equal(outcome, 'below_floor');
        assert.equal((await store.db.read((tx) => getAccount(tx, 'test:b')))?.balance_cents, 15_000);
        assert.equal((await store.db.read((tx) => getAccount(tx, 'test:y')))?.balance_cents, 0);
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
              post(tx, { kind: 'merchant.fund', debitAccountId: 'test:a', creditAccountId: credit, amountCents, merchantId: null, refId: `bad_${amountCents}_${credit}`, nowMs: NOW_MS }),
            ),
          );
        }
        assert.equal((await verifyLedger(store.db)).ok, true);
      });

      it('detects a cached balance that differs from its postings', async () => {
        await store.db.write((tx) => tx.run("UPDATE accounts SET balance_cents = balance_cents + 1 WHERE id = 'test:b'"));
        const report = await verifyLedger(store.db);
        assert.equal(report.ok, false);
        assert.ok(report.problems.some((p) => p.includes('account test:b: cached balance 15001 != 15000')), report.problems.join('\n'));
        assert.ok(report.problems.some((p) => p.includes('balances sum to 1')));
        await store.db.write((tx) => tx.run("UPDATE accounts SET balance_cents = balance_cents - 1 WHERE id = 'test:b'"));
        assert.equal((await verifyLedger(store.db)).ok, true);
      });
    });
  });
}
