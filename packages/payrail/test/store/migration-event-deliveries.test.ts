// Migration 013 (a webhook delivery's key to its event dropped) on a store
// that holds deliveries, through the store's own migrate(), on both
// dialects: every row is kept as it was, the deliveries' identity goes on
// from where it was (a row deleted at the top does not get its number
// again), an event written before it (fanned_out 0) is still fanned out,
// the dropped key no longer refuses a row, and the key to the endpoint
// still does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Db } from '../../src/store/db.ts';
import { fanOutEvents } from '../../src/store/events.ts';
import { migratePostgresFrom, migrateSqliteFrom, type RawAll } from '../helpers/migrations.ts';

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

const CASE = {
  version: 13,
  seed: SEED,
  snapshot: async (all: RawAll) => normal(await all('SELECT * FROM webhook_deliveries ORDER BY pk')),
  check: assertMigrated,
};

describe('migration 013 on a store that holds webhook deliveries', () => {
  it('SQLite', () => migrateSqliteFrom(CASE));
  it('PostgreSQL', () => migratePostgresFrom(CASE));
});
