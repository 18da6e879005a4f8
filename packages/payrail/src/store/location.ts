// Where the configured store is, in words an operator recognises: the SQLite
// file's path, or the PostgreSQL URL without its password. CLI errors name
// it, so a command run against another store than the server's (another
// PAYRAIL_DATA_DIR, a DATABASE_URL left unset) says so at once.
import path from 'node:path';
import type { Config } from '../config.ts';

/** The embedded store's file in the data directory. */
export const SQLITE_FILE_NAME = 'payrail.sqlite';

export function sqliteFile(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, SQLITE_FILE_NAME);
}

export function storeLocation(config: Pick<Config, 'databaseUrl' | 'dataDir'>): string {
  if (config.databaseUrl === null) return sqliteFile(config);
  return withoutPassword(config.databaseUrl);
}

/** The URL with any password removed (a URL that does not parse is not shown at all). */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return 'the DATABASE_URL (not a valid URL)';
  }
}
