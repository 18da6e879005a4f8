// The installation id (migration 022, behaviour.md section 18): recorded once,
// when the store is created or first migrated past 022, and read by every
// process that starts on the store to derive its provider keys
// (domain/provider-keys.ts). Several processes may start at once on one
// PostgreSQL store: the id is inserted only if absent and then read, so they
// all end up with the first committed one.
//
// A restored copy of the store keeps the original's id: before it talks to
// providers it must take a new one, or it would replay the original's keys
// and a provider could answer it with the original's payments. Payrail has no
// command for that yet (docs/production.md says what to do meanwhile).
//
// The row also records the highest primary keys of charges, verifications
// and transfers when it was written (migration 022 says why): those records
// keep the keys they were first sent under.
import { INSTALLATION_ID_PATTERN, type Installation, newInstallationId } from '../domain/provider-keys.ts';
import type { Db, Tx } from './db.ts';

/** Records a new installation unless the store has one; answers the recorded one. Runs inside the migration's transaction. */
export async function ensureInstallationIdIn(tx: Tx, nowMs: number): Promise<Installation> {
  const present = await tx.get<{ singleton: number }>('SELECT singleton FROM installation WHERE singleton = 1');
  if (present === undefined) {
    // Under the migration lock: no record is being made while these are read.
    const highest = async (table: string) => Number((await tx.get<{ pk: number | null }>(`SELECT MAX(pk) AS pk FROM ${table}`))?.pk ?? 0);
    await tx.run(
      `INSERT INTO installation (singleton, installation_id, legacy_charge_pk_max, legacy_verification_pk_max, legacy_transfer_pk_max, created_at_ms)
       VALUES (1, ?, ?, ?, ?, ?) ON CONFLICT (singleton) DO NOTHING`,
      [newInstallationId(), await highest('charges'), await highest('verifications'), await highest('transfers'), nowMs],
    );
  }
  return installationIn(tx);
}

interface InstallationRow {
  installation_id: string;
  legacy_charge_pk_max: number | string;
  legacy_verification_pk_max: number | string;
  legacy_transfer_pk_max: number | string;
}

async function installationIn(tx: Tx): Promise<Installation> {
  const row = await tx.get<InstallationRow>(
    'SELECT installation_id, legacy_charge_pk_max, legacy_verification_pk_max, legacy_transfer_pk_max FROM installation WHERE singleton = 1',
  );
  if (row === undefined) throw new Error('the store has no installation id: migrate it first (payrail migrate)');
  if (!INSTALLATION_ID_PATTERN.test(row.installation_id)) throw new Error('the store installation id is not 32 lowercase hex digits');
  return {
    id: row.installation_id,
    legacyPkMax: {
      charge: Number(row.legacy_charge_pk_max),
      verification: Number(row.legacy_verification_pk_max),
      transfer: Number(row.legacy_transfer_pk_max),
      // Receivers got keys only with the installation id: none is older.
      receiver: 0,
    },
  };
}

/** The store's installation; throws when the store was not migrated (it has none). */
export function readInstallation(db: Db): Promise<Installation> {
  return db.read(installationIn);
}

/** The store's installation id; throws when the store was not migrated (it has none). */
export async function readInstallationId(db: Db): Promise<string> {
  return (await readInstallation(db)).id;
}
