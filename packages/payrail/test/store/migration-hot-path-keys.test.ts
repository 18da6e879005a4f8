// Migration 011 (the hot path's foreign keys dropped) on a store that holds
// transfers, history and postings, through the store's own migrate(), on
// both dialects: every row is kept as it was, each table's identity goes on
// from where it was (not from its largest row: a row deleted at the top must
// not have its number handed out again), the dropped keys no longer refuse
// a row, and the keys other tables hold on the rebuilt ones still do.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Db } from '../../src/store/db.ts';
import { migratePostgresFrom, migrateSqliteFrom, type RawAll } from '../helpers/migrations.ts';

const TRANSFER = (id: string) =>
  `INSERT INTO transfers (merchant_id, id, sender_phone, receiver_phone, amount_cents, service, receiver_country, receiver_currency,
     fx_rate, received_minor, attributes_json, state, substate, final, created_at_ms, updated_at_ms)
   VALUES ('mer_a', '${id}', '+14155550100', '+254712345678', 100, '1001', 'KE', 'KES', '129.25', 12925, '[]', 0, 0, 0, 1, 1)`;
const POSTING = (ref: string) =>
  `INSERT INTO postings (debit_account_id, credit_account_id, amount_cents, kind, merchant_id, ref_type, ref_id, created_at_ms)
   VALUES ('mer_a:available', 'mer_a:in_flight', 100, 'transfer.execute', 'mer_a', 'transfer', '${ref}', 1)`;
const HISTORY = (transferPk: number) => `INSERT INTO transfer_events (transfer_pk, state, substate, note, at_ms) VALUES (${transferPk}, 0, 0, 'created', 1)`;

/** Three of each, the last of each deleted again: each identity is then one past its largest row. */
const SEED = [
  "INSERT INTO merchants (id, name, payouts_must_link, created_at_ms) VALUES ('mer_a', 'A', 0, 1)",
  "INSERT INTO sources (id, merchant_id, name, created_at_ms) VALUES ('src_a', 'mer_a', 'S', 1)",
  "INSERT INTO accounts (id, merchant_id, kind, currency, balance_cents, created_at_ms) VALUES ('mer_a:available', 'mer_a', 'available', 'USD', -200, 1)",
  "INSERT INTO accounts (id, merchant_id, kind, currency, balance_cents, created_at_ms) VALUES ('mer_a:in_flight', 'mer_a', 'in_flight', 'USD', 200, 1)",
  TRANSFER('1'),
  TRANSFER('2'),
  TRANSFER('3'),
  POSTING('1'),
  POSTING('2'),
  POSTING('3'),
  HISTORY(1),
  HISTORY(2),
  HISTORY(3),
  'DELETE FROM transfer_events WHERE transfer_pk = 3',
  "DELETE FROM postings WHERE ref_id = '3'",
  "DELETE FROM transfers WHERE id = '3'",
  `INSERT INTO charges (merchant_id, source_id, status, amount_cents, currency, card_type, last4, bin, expiry_month, expiry_year, card_number_enc, request_json, created_at_ms, updated_at_ms)
   VALUES ('mer_a', 'src_a', 'approved', 100, 'USD', 'Visa', '1111', '411111', 12, 2035, EMPTY_BYTES, '{}', 1, 1)`,
  "INSERT INTO transfer_links (transfer_pk, charge_pk, amount_cents, how, created_at_ms) VALUES (1, 100000001, 100, 'gateway', 1)",
];

const TABLES = ['transfers ORDER BY pk', 'postings ORDER BY id', 'transfer_events ORDER BY id', 'transfer_links ORDER BY transfer_pk'];

/** Numbers as numbers, whichever driver read them. */
function normal(rows: ReadonlyArray<Record<string, unknown>>): Array<Record<string, unknown>> {
  return rows.map((row) =>
    Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' || (typeof v === 'string' && /^-?[0-9]+$/.test(v)) ? Number(v) : v])),
  );
}

type Snapshot = Array<Array<Record<string, unknown>>>;

/** The tables' rows, read by `all` (the store's, or a driver's before the store migrates). */
async function snapshot(all: RawAll): Promise<Snapshot> {
  const tables: Snapshot = [];
  for (const t of TABLES) tables.push(normal(await all(`SELECT * FROM ${t}`)));
  assert.equal(tables[0]!.length, 2);
  return tables;
}

/** The rows of `after` with only the columns `before` had: later migrations add columns, which this one does not judge. */
function columnsOf(before: Snapshot, after: Snapshot): Snapshot {
  return after.map((rows, table) => {
    const columns = Object.keys(before[table]?.[0] ?? {});
    return rows.map((row) => Object.fromEntries(columns.map((column) => [column, row[column]])));
  });
}

async function assertMigrated(db: Db, before: Snapshot): Promise<void> {
  const after = await snapshot((sql) => db.read((tx) => tx.all(sql)));
  assert.deepEqual(columnsOf(before, after), before, 'every row kept as it was');
  const pks = await db.write(async (tx) => {
    const numberOf = async (sql: string) => Number((await tx.get<{ n: unknown }>(sql))?.n);
    return {
      transfer: await numberOf(`${TRANSFER('4')} RETURNING pk AS n`),
      posting: await numberOf(`${POSTING('4')} RETURNING id AS n`),
      history: await numberOf(`${HISTORY(1)} RETURNING id AS n`),
    };
  });
  // The deleted third rows' numbers are not handed out again.
  assert.deepEqual(pks, { transfer: 4, posting: 4, history: 4 });
  // The dropped keys no longer refuse a row (the ledger verifier reports such rows instead)...
  await db.write(async (tx) => {
    await tx.run(TRANSFER('5').replace("'mer_a'", "'mer_missing'"));
    await tx.run(HISTORY(999));
    await tx.run(POSTING('5').replace("'mer_a:available'", "'no_such_account'"));
  });
  // ...and a key another table holds on a rebuilt one still does.
  await assert.rejects(
    db.write((tx) => tx.run("INSERT INTO transfer_links (transfer_pk, charge_pk, amount_cents, how, created_at_ms) VALUES (999, 100000001, 1, 'gateway', 1)")),
    /FOREIGN KEY|foreign key/,
  );
}

const CASE = { version: 11, seed: SEED, snapshot, check: assertMigrated };

describe('migration 011 on a store that holds transfers', () => {
  it('SQLite', () => migrateSqliteFrom(CASE));
  it('PostgreSQL', () => migratePostgresFrom(CASE));
});
