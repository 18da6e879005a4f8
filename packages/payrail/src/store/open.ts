// Chooses the store from configuration: a postgres:// DATABASE_URL selects
// PostgreSQL, anything else the embedded SQLite file in the data directory.
import type { Config } from '../config.ts';
import type { Db } from './db.ts';
import { sqliteFile } from './location.ts';
import { PostgresDb } from './postgres.ts';
import { SqliteDb } from './sqlite.ts';

export { SQLITE_FILE_NAME } from './location.ts';
export { newCommitSignalBuffer } from './commit-signal.ts';

export interface OpenOptions {
  readonly pgSchema?: string;
  /** SQLite: shared with the other threads of this process that write the store (commit-signal.ts). */
  readonly commitSignal?: SharedArrayBuffer;
}

export function openDb(config: Pick<Config, 'databaseUrl' | 'dataDir' | 'pgPoolSize'>, options: OpenOptions = {}): Db {
  if (config.databaseUrl !== null) return new PostgresDb(config.databaseUrl, config.pgPoolSize, options.pgSchema);
  return new SqliteDb(sqliteFile(config), options.commitSignal === undefined ? {} : { commitSignal: options.commitSignal });
}

/** Opens the store and brings its schema up to date. */
export async function openMigratedDb(config: Pick<Config, 'databaseUrl' | 'dataDir' | 'pgPoolSize'>, options: OpenOptions = {}): Promise<Db> {
  const db = openDb(config, options);
  try {
    await db.migrate();
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}
