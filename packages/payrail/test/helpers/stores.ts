// Test stores: a fresh SQLite file in a temp dir, or a fresh PostgreSQL
// schema in the machine's `test` database. Every suite that touches the store
// runs against both through `forEachStore`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { randomBase62 } from '../../src/domain/ids.ts';
import type { Db } from '../../src/store/db.ts';
import { openMigratedDb } from '../../src/store/open.ts';

export const TEST_DATABASE_URL = process.env.PAYRAIL_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestStore {
  readonly kind: 'sqlite' | 'postgres';
  readonly db: Db;
  /** Environment for a spawned process that should use this same store. */
  readonly env: Record<string, string>;
  readonly dataDir: string;
  dispose(): Promise<void>;
}

/** Temp dirs of this test process not removed yet; whatever a test leaves is removed when its process exits. */
const tempDirs = new Set<string>();
process.once('exit', () => {
  for (const dir of tempDirs) {
    try {
      fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // Best effort: a child process may still be writing there as the test process ends.
    }
  }
});

/** A fresh temp dir, removed at the latest when the test process exits. */
export function tempDir(prefix = 'payrail-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

/**
 * The configuration directory of this test process and what it spawns: a
 * sandbox without PAYRAIL_CARD_KEY_FILE keeps its generated key there
 * (src/crypto/card-key.ts), not in the user's ~/.config; removed at exit.
 */
export function testConfigHome(): string {
  process.env.XDG_CONFIG_HOME ??= tempDir('payrail-config-');
  return process.env.XDG_CONFIG_HOME;
}
testConfigHome();

/** A sandbox key file of its own for each test store, outside its data directory as the default is (src/crypto/card-key.ts), removed with the temp dirs. */
function sandboxKeyFile(): string {
  return path.join(tempDir('payrail-key-'), 'card-data.key');
}

export async function createSqliteStore(): Promise<TestStore> {
  const dataDir = tempDir();
  const db = await openMigratedDb({ databaseUrl: null, dataDir, pgPoolSize: 4 });
  return {
    kind: 'sqlite',
    db,
    dataDir,
    env: { PAYRAIL_DATA_DIR: dataDir, PAYRAIL_CARD_KEY_FILE: sandboxKeyFile() },
    async dispose() {
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs one statement on the test database outside any test schema. */
export async function adminQuery(statement: string): Promise<void> {
  const sql = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => undefined });
  try {
    await sql.unsafe(statement);
  } finally {
    await sql.end();
  }
}

export async function createPostgresStore(): Promise<TestStore> {
  const schema = `t_${randomBase62(12).toLowerCase()}`;
  await adminQuery(`CREATE SCHEMA ${schema}`);
  const url = `${TEST_DATABASE_URL}${TEST_DATABASE_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  const dataDir = tempDir();
  const db = await openMigratedDb({ databaseUrl: url, dataDir, pgPoolSize: 8 });
  return {
    kind: 'postgres',
    db,
    dataDir,
    env: { DATABASE_URL: url, PAYRAIL_DATA_DIR: dataDir, PAYRAIL_CARD_KEY_FILE: sandboxKeyFile() },
    async dispose() {
      await db.close();
      await adminQuery(`DROP SCHEMA ${schema} CASCADE`);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const STORE_KINDS = ['sqlite', 'postgres'] as const;

export function createStore(kind: 'sqlite' | 'postgres'): Promise<TestStore> {
  return kind === 'sqlite' ? createSqliteStore() : createPostgresStore();
}
