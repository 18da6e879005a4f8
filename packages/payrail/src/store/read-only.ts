// Opens the configured store for a command that only reads (`payrail
// merchant show`, `merchant list`, `ledger verify`). Unlike openMigratedDb it
// creates nothing (no data directory, no SQLite file, no schema), migrates
// nothing and cannot write: SQLite is opened read-only, PostgreSQL sessions
// are read-only. A store that is missing, or whose schema is behind this
// version, is refused with a message naming where it was looked for.
import fs from 'node:fs';
import type { Config } from '../config.ts';
import type { Db } from './db.ts';
import { sqliteFile, storeLocation } from './location.ts';
import { MIGRATIONS } from './migrations/index.ts';
import { PostgresDb } from './postgres.ts';
import { ReadOnlySqliteDb } from './sqlite-read-only.ts';

/** The configured store does not exist, or is not one this version can read. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

export async function openReadOnlyDb(config: Pick<Config, 'databaseUrl' | 'dataDir' | 'pgPoolSize'>): Promise<Db> {
  const where = storeLocation(config);
  let db: Db;
  if (config.databaseUrl === null) {
    const file = sqliteFile(config);
    if (!fs.existsSync(file)) {
      throw new StoreUnavailableError(`no store at ${file} (start \`payrail serve\` or run \`payrail migrate\` to create one, or set PAYRAIL_DATA_DIR)`);
    }
    db = new ReadOnlySqliteDb(file);
  } else {
    db = readOnlyView(new PostgresDb(readOnlySessions(config.databaseUrl), config.pgPoolSize));
  }
  try {
    await requireCurrentSchema(db, where);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

/** `db` with its writes and migrations refused up front (the sessions refuse them too). */
function readOnlyView(db: Db): Db {
  const refused = () => Promise.reject(new Error('the store is open read-only'));
  return {
    dialect: db.dialect,
    write: refused,
    read: (work) => db.read(work),
    readSnapshot: (work) => db.readSnapshot(work),
    synced: () => db.synced(),
    migrate: refused,
    close: () => db.close(),
  };
}

/** The URL with `-c default_transaction_read_only=on` added to its session options. */
function readOnlySessions(url: string): string {
  const parsed = new URL(url);
  const options = parsed.searchParams.get('options');
  parsed.searchParams.set('options', `${options === null ? '' : `${options} `}-c default_transaction_read_only=on`);
  return parsed.toString();
}

async function requireCurrentSchema(db: Db, where: string): Promise<void> {
  let applied: Set<number>;
  try {
    applied = new Set((await db.read((tx) => tx.all<{ version: number }>('SELECT version FROM schema_migrations'))).map((row) => Number(row.version)));
  } catch (error) {
    // PostgreSQL's undefined_table, SQLite's "no such table": anything else (a refused connection) is reported as it is.
    const code = (error as { code?: unknown }).code;
    if (code !== '42P01' && !/no such table/.test(String((error as Error).message))) throw error;
    throw new StoreUnavailableError(`no Payrail store at ${where} (no schema_migrations table; run \`payrail migrate\` to create one)`);
  }
  const missing = MIGRATIONS.filter((migration) => !applied.has(migration.version));
  if (missing.length > 0) {
    throw new StoreUnavailableError(`the store at ${where} lacks ${missing.length} schema migration(s) of this version: run \`payrail migrate\` first`);
  }
}
