// The charge statements that find one row by its key and check more about it
// are planned on the key on PostgreSQL, even while the table has no
// statistics and the merchant has thousands of charges in the stage the
// statement checks (store/by-key.ts). Each statement's SQL is taken from the
// store function itself (a Tx that only records), then explained on a
// store that holds 3,000 authorized and 3,000 settled charges of one
// merchant, never analyzed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SqlValue, Tx } from '../../src/store/db.ts';
import { getCharge } from '../../src/store/charges.ts';
import { reserveCapture, reserveVoid } from '../../src/store/charge-operations.ts';
import { reserveRefundCents } from '../../src/store/refunds.ts';
import { getTransaction } from '../../src/store/transactions.ts';
import { indexesOf } from '../helpers/plans.ts';
import { createStore, type TestStore } from '../helpers/stores.ts';

/** The statements a store function would run, with their parameters; it answers nothing. */
function recorder(): { tx: Tx; statements: Array<{ sql: string; params: readonly SqlValue[] }> } {
  const statements: Array<{ sql: string; params: readonly SqlValue[] }> = [];
  const note = <T>(sql: string, params: readonly SqlValue[] | undefined, answer: T): Promise<T> => {
    statements.push({ sql, params: params ?? [] });
    return Promise.resolve(answer);
  };
  const tx: Tx = {
    dialect: 'postgres',
    all: (sql, params) => note(sql, params, []),
    get: (sql, params) => note(sql, params, undefined),
    run: (sql, params) => note(sql, params, { changes: 0 }),
    insert: (sql, params) => note(sql, params, null),
  } as Tx;
  return { tx, statements };
}

describe('charge statements by key, on PostgreSQL without table statistics', () => {
  let store: TestStore;
  const merchant = 'mer_plans';
  before(async () => {
    store = await createStore('postgres');
    await store.db.write(async (tx) => {
      await tx.run("INSERT INTO merchants (id, name, payouts_must_link, created_at_ms) VALUES (?, 'Plans', 0, 1)", [merchant]);
      await tx.run("INSERT INTO sources (id, merchant_id, name, created_at_ms) VALUES ('src_plans', ?, 'S', 1)", [merchant]);
      for (const stage of ['authorized', 'settled']) {
        await tx.run(
          `INSERT INTO charges (merchant_id, source_id, status, amount_cents, currency, card_type, last4, bin, expiry_month, expiry_year, card_number_enc,
             request_json, created_at_ms, updated_at_ms, stage, captured_cents)
           SELECT ?, 'src_plans', 'approved', 100, 'USD', 'Visa', '1111', '411111', 12, 2035, '\\x'::bytea, '{}', n, n, ?, ?
           FROM generate_series(1, 3000) AS n`,
          [merchant, stage, stage === 'settled' ? 100 : 0],
        );
      }
    });
  });
  after(async () => {
    await store.dispose();
  });

  const reservation = { pk: 100000001, merchantId: merchant, sourceId: 'src_plans', idemKey: null, recoverAtMs: 1, nowMs: 1 };
  const cases: Array<[string, (tx: Tx) => Promise<unknown>]> = [
    ['reserveCapture', (tx) => reserveCapture(tx, { ...reservation, amountCents: null, createdAfterMs: 0 })],
    ['reserveVoid', (tx) => reserveVoid(tx, reservation)],
    ['reserveRefundCents', (tx) => reserveRefundCents(tx, 100000001, merchant, 100, 1)],
    ['getCharge', (tx) => getCharge(tx, 100000001, merchant)],
    ['getTransaction', (tx) => getTransaction(tx, 100000001, merchant)],
  ];
  for (const [name, call] of cases) {
    it(`${name} reads one charge by its key`, async () => {
      const { tx, statements } = recorder();
      await call(tx);
      const statement = statements[0]!;
      const explained = await store.db.read((t) => t.all<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${statement.sql}`, statement.params));
      const plan = explained[0]!['QUERY PLAN'];
      assert.deepEqual(indexesOf(plan), ['charges_pkey'], JSON.stringify(plan));
    });
  }
});
