// The installation id (migration 022, behaviour.md section 18): recorded once,
// when the store is created or first migrated past 022, and read by every
// process that starts on the store to derive its provider keys
// (domain/provider-keys.ts). Several processes may start at once on one
// PostgreSQL store: the id is inserted only if absent and then read, so they
// all end up with the first committed one.
//
// A restored copy of the store keeps the original's id: before it talks to
// providers it must take a new one (a restore command, added with the
// operations issue, replaces the row), or it would replay the original's keys
// and a provider could answer it with the original's payments.
import { INSTALLATION_ID_PATTERN, newInstallationId } from '../domain/provider-keys.ts';
import type { Db, Tx } from './db.ts';

/** Records a new installation id unless the store has one; answers the recorded one. Runs inside the migration's transaction. */
export async function ensureInstallationIdIn(tx: Tx, nowMs: number): Promise<string> {
  await tx.run('INSERT INTO installation (singleton, installation_id, created_at_ms) VALUES (1, ?, ?) ON CONFLICT (singleton) DO NOTHING', [
    newInstallationId(),
    nowMs,
  ]);
  return installationIdIn(tx);
}

async function installationIdIn(tx: Tx): Promise<string> {
  const row = await tx.get<{ installation_id: string }>('SELECT installation_id FROM installation WHERE singleton = 1');
  if (row === undefined) throw new Error('the store has no installation id: migrate it first (payrail migrate)');
  if (!INSTALLATION_ID_PATTERN.test(row.installation_id)) throw new Error('the store installation id is not 32 lowercase hex digits');
  return row.installation_id;
}

/** The store's installation id; throws when the store was not migrated (it has none). */
export function readInstallationId(db: Db): Promise<string> {
  return db.read(installationIdIn);
}
