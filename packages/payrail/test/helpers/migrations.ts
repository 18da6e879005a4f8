// A store left at an earlier schema, filled, then migrated by the store's
// own migrate(): how each migration test that rebuilds or changes tables
// with rows in them starts, on either dialect.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { randomBase62 } from '../../src/domain/ids.ts';
import type { Db } from '../../src/store/db.ts';
import { SQLITE_FILE_NAME } from '../../src/store/location.ts';
import { MIGRATIONS, translateMigration } from '../../src/store/migrations/index.ts';
import { openMigratedDb } from '../../src/store/open.ts';
import { adminQuery, TEST_DATABASE_URL, tempDir } from './stores.ts';

/** Reads rows with the driver's own connection, before the store opens the database. */
export type RawAll = (sql: string) => Promise<ReadonlyArray<Record<string, unknown>>>;

export interface MigrationCase<S> {
  /** The first migration not applied before the seed. */
  readonly version: number;
  /** Statements run on the earlier schema; `EMPTY_BYTES` stands for an empty binary value. */
  readonly seed: readonly string[];
  /** What the test keeps of the rows before the migration. */
  readonly snapshot: (all: RawAll) => Promise<S>;
  /** Run on the migrated store. */
  readonly check: (db: Db, before: S) => Promise<void>;
}

export async function migrateSqliteFrom<S>(c: MigrationCase<S>): Promise<void> {
  const dataDir = tempDir();
  try {
    const file = new Database(path.join(dataDir, SQLITE_FILE_NAME));
    file.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at_ms INTEGER NOT NULL)');
    for (const m of MIGRATIONS.filter((m) => m.version < c.version)) {
      file.exec(translateMigration(m.sql, 'sqlite', m.name));
      file.prepare('INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (?, ?, 1)').run(m.version, m.name);
    }
    for (const statement of c.seed) file.exec(statement.replace('EMPTY_BYTES', "X''"));
    const before = await c.snapshot(async (sql) => file.prepare(sql).all() as Array<Record<string, unknown>>);
    file.close();
    const db = await openMigratedDb({ databaseUrl: null, dataDir, pgPoolSize: 1 });
    try {
      await c.check(db, before);
    } finally {
      await db.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** In a schema of its own, dropped afterwards. */
export async function migratePostgresFrom<S>(c: MigrationCase<S>): Promise<void> {
  const schema = `t_${randomBase62(12).toLowerCase()}`;
  await adminQuery(`CREATE SCHEMA ${schema}`);
  try {
    const sql = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => undefined, connection: { search_path: schema } });
    let before: S;
    try {
      await sql.unsafe('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at_ms BIGINT NOT NULL)');
      for (const m of MIGRATIONS.filter((m) => m.version < c.version)) {
        await sql.unsafe(translateMigration(m.sql, 'postgres', m.name));
        await sql.unsafe('INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES ($1, $2, 1)', [m.version, m.name]);
      }
      for (const statement of c.seed) await sql.unsafe(statement.replace('EMPTY_BYTES', "'\\x'::bytea"));
      before = await c.snapshot(async (statement) => [...(await sql.unsafe(statement))]);
    } finally {
      await sql.end();
    }
    const url = `${TEST_DATABASE_URL}${TEST_DATABASE_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const db = await openMigratedDb({ databaseUrl: url, dataDir: tempDir(), pgPoolSize: 2 });
    try {
      await c.check(db, before);
    } finally {
      await db.close();
    }
  } finally {
    await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  }
}
