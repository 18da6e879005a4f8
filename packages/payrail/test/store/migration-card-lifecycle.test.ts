// Migration 005 (the card lifecycle) on a store that already holds charges,
// on both dialects: an approved charge made before it reads as captured, with
// its captured amount, in an open batch of its merchant that the next daily
// close settles; other charges are untouched.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { randomBase62 } from '../../src/domain/ids.ts';
import { MIGRATIONS, translateMigration } from '../../src/store/migrations/index.ts';
import { adminQuery, TEST_DATABASE_URL } from '../helpers/stores.ts';

const BEFORE = MIGRATIONS.filter((m) => m.version < 5);
const CARD_LIFECYCLE = MIGRATIONS.find((m) => m.version === 5)!;

const SEED = [
  "INSERT INTO merchants (id, name, payouts_must_link, created_at_ms) VALUES ('mer_a', 'A', 0, 1)",
  "INSERT INTO sources (id, merchant_id, name, created_at_ms) VALUES ('src_a', 'mer_a', 'S', 1)",
  ...[
    ['approved', 2500, 1000],
    ['approved', 700, 900],
    ['declined', 300, 1100],
  ].map(
    ([status, cents, at]) =>
      `INSERT INTO charges (merchant_id, source_id, status, amount_cents, currency, card_type, last4, bin, expiry_month, expiry_year, card_number_enc, request_json, created_at_ms, updated_at_ms)
       VALUES ('mer_a', 'src_a', '${status}', ${cents}, 'USD', 'Visa', '1111', '411111', 12, 2035, '', '{}', ${at}, ${at})`,
  ),
];

const AFTER_SQL = 'SELECT status, stage, captured_cents, batch_id FROM charges ORDER BY pk';
const BATCH_SQL = 'SELECT id, merchant_id, opened_at_ms, closed_at_ms FROM batches';

function expected(rows: Array<Record<string, unknown>>, batches: Array<Record<string, unknown>>) {
  const normal = (row: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' || (typeof v === 'string' && /^[0-9]+$/.test(v)) ? Number(v) : v]));
  assert.deepEqual(batches.map(normal), [{ id: 1, merchant_id: 'mer_a', opened_at_ms: 900, closed_at_ms: null }]);
  assert.deepEqual(rows.map(normal), [
    { status: 'approved', stage: 'captured', captured_cents: 2500, batch_id: 1 },
    { status: 'approved', stage: 'captured', captured_cents: 700, batch_id: 1 },
    { status: 'declined', stage: null, captured_cents: 0, batch_id: null },
  ]);
}

describe('migration 005 on existing charges', () => {
  it('SQLite', () => {
    const db = new Database(':memory:');
    for (const m of BEFORE) db.exec(translateMigration(m.sql, 'sqlite', m.name));
    for (const statement of SEED) db.exec(statement.replace("''", "X''"));
    db.exec(translateMigration(CARD_LIFECYCLE.sql, 'sqlite', CARD_LIFECYCLE.name));
    expected(db.prepare(AFTER_SQL).all() as Array<Record<string, unknown>>, db.prepare(BATCH_SQL).all() as Array<Record<string, unknown>>);
    db.close();
  });

  const schema = `t_${randomBase62(12).toLowerCase()}`;
  after(() => adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));

  it('PostgreSQL', async () => {
    await adminQuery(`CREATE SCHEMA ${schema}`);
    const sql = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => undefined, connection: { search_path: schema } });
    try {
      for (const m of BEFORE) await sql.unsafe(translateMigration(m.sql, 'postgres', m.name));
      for (const statement of SEED) await sql.unsafe(statement.replace("''", "'\\x'::bytea"));
      await sql.unsafe(translateMigration(CARD_LIFECYCLE.sql, 'postgres', CARD_LIFECYCLE.name));
      expected([...(await sql.unsafe(AFTER_SQL))], [...(await sql.unsafe(BATCH_SQL))]);
    } finally {
      await sql.end();
    }
  });
});
