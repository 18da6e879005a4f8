// Migration 013 (a webhook delivery's key to its event dropped) on a store
// that holds deliveries, through the store's own migrate(), on both
// dialects: every row is kept as it was, the deliveries' identity goes on
// from where it was (a row deleted at the top does not get its number
// again), an event written before it (fanned_out 0) is still fanned out,
// the dropped key no longer refuses a row, and the key to the endpoint
// still does.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { randomBase62 } from '../src/domain/ids.ts';
import type { Db } from '../src/store/db.ts';
import { fanOutEvents } from '../src/store/events.ts';
import { SQLITE_FILE_NAME } from '../src/store/location.ts';
import { MIGRATIONS, translateMigration } from '../src/store/migrations/index.ts';
import { openMigratedDb } from '../src/store/open.ts';
import { adminQuery, TEST_DATABASE_URL, tempDir } from './helpers/stores.ts';

const BEFORE = MIGRATIONS.filter((m) => m.version < 13);

const DELIVERY = (eventPk: number) =>
  `INSERT INTO webhook_deliveries (event_pk, endpoint_id, merchant_id, status, attempts, next_attempt_at_ms, created_at_ms, updated_at_ms)
   VALUES (${eventPk}, 'we_a', 'mer_a', 'pending', 0, 5, 1, 1)`;

/** Three deliveries, the last deleted again; one more event written before 013, not fanned out yet. */
const SEED = [
  "INSERT INTO merchants (id, name, payouts_must_link, created_at_ms) VALUES ('mer_a', 'A', 0, 1)",
  `INSERT INTO webhook_endpoints (id, merchant_id, url, event_types, enabled, secret_enc, created_at_ms, updated_at_ms)
   VALUES ('we_a', 'mer_a', 'https://hooks.example.com/a', '', 1, EMPTY_BYTES, 1, 1)`,
  "INSERT INTO events (merchant_id, type, data_json, created_at_ms, fanned_out) VALUES ('mer_a', 'transfer.created', '{}', 1, 1)",
  "INSERT INTO events (merchant_id, type, data_json, created_at_ms, fanned_out) VALUES ('mer_a', 'transfer.created', '{}', 1, 1)",
  "INSERT INTO events (merchant_id, type, data_json, created_at_ms, fanned_out) VALUES ('mer_a', 'transfer.created', '{}', 1, 1)",
  DELIVERY(1),
  DELIVERY(2),
  DELIVERY(3),
  'DELETE FROM webhook_deliveries WHERE event_pk = 3',
  "INSERT INTO events (merchant_id, type, data_json, created_at_ms, fanned_out) VALUES ('mer_a', 'transfer.created', '{}', 2, 0)",
];

/** Numbers as numbers, whichever driver read them. */
function normal(rows: ReadonlyArray<Record<string, unknown>>): Array<Record<string, unknown>> {
  return rows.map((row) =>
    Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' || (typeof v === 'string' && /^-?[0-9]+$/.test(v)) ? Number(v) : v])),
  );
}

async function assertMigrated(db: Db, before: Array<Record<string, unknown>>): Promise<void> {
  assert.deepEqual(normal(await db.read((tx) => tx.all('SELECT * FROM webhook_deliveries ORDER BY pk'))), before, 'every row kept as it was');
  // The event written before 013 is fanned out, once.
  assert.equal(await fanOutEvents(db, 10, 100), 1);
  assert.equal(await fanOutEvents(db, 10, 100), 0);
  const made = normal(await db.read((tx) => tx.all('SELECT pk, event_pk, next_attempt_at_ms FROM webhook_deliveries WHERE event_pk = 4')));
  // Not number 3: the deleted delivery's number is not handed out again.
  assert.deepEqual(made, [{ pk: 4, event_pk: 4, next_attempt_at_ms: 10 }]);
  // The dropped key no longer refuses a row...
  await db.write((tx) => tx.run(DELIVERY(999)));
  // ...and the key to the endpoint still does.
  await assert.rejects(
    db.write((tx) => tx.run(DELIVERY(1).replace("'we_a'", "'we_missing'"))),
    /FOREIGN KEY|foreign key/,
  );
}

describe('migration 013 on a store that holds webhook deliveries', () => {
  it('SQLite', async () => {
    const dataDir = tempDir();
    try {
      const file = new Database(path.join(dataDir, SQLITE_FILE_NAME));
      file.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at_ms INTEGER NOT NULL)');
      for (const m of BEFORE) {
        file.exec(translateMigration(m.sql, 'sqlite', m.name));
        file.prepare('INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (?, ?, 1)').run(m.version, m.name);
      }
      for (const statement of SEED) file.exec(statement.replace('EMPTY_BYTES', "X''"));
      const before = normal(file.prepare('SELECT * FROM webhook_deliveries ORDER BY pk').all() as Array<Record<string, unknown>>);
      file.close();
      const db = await openMigratedDb({ databaseUrl: null, dataDir, pgPoolSize: 1 });
      try {
        await assertMigrated(db, before);
      } finally {
        await db.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  const schema = `t_${randomBase62(12).toLowerCase()}`;
  after(() => adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));

  it('PostgreSQL', async () => {
    await adminQuery(`CREATE SCHEMA ${schema}`);
    const sql = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => undefined, connection: { search_path: schema } });
    let before: Array<Record<string, unknown>>;
    try {
      await sql.unsafe('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at_ms BIGINT NOT NULL)');
      for (const m of BEFORE) {
        await sql.unsafe(translateMigration(m.sql, 'postgres', m.name));
        await sql.unsafe('INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES ($1, $2, 1)', [m.version, m.name]);
      }
      for (const statement of SEED) await sql.unsafe(statement.replace('EMPTY_BYTES', "'\\x'::bytea"));
      before = normal([...(await sql.unsafe('SELECT * FROM webhook_deliveries ORDER BY pk'))]);
    } finally {
      await sql.end();
    }
    const url = `${TEST_DATABASE_URL}${TEST_DATABASE_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const db = await openMigratedDb({ databaseUrl: url, dataDir: tempDir(), pgPoolSize: 2 });
    try {
      await assertMigrated(db, before);
    } finally {
      await db.close();
    }
  });
});
