// Embedded store: SQLite through better-sqlite3, in WAL mode with
// synchronous=FULL so every commit is on disk before anyone is answered.
// One writer connection (SQLite has one writer anyway) fed by group commit,
// and one reader connection so reads never wait behind a commit.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Db, SqlValue, Tx } from './db.ts';
import { GroupCommitter, type BatchRunner } from './group-commit.ts';
import { MIGRATIONS } from './migrations/index.ts';

type Statement = Database.Statement<unknown[], unknown>;

/** How long a connection waits for another process's write lock (the CLI, a worker). */
const BUSY_TIMEOUT_MS = 10_000;
const STATEMENT_CACHE_MAX = 500;

class SqliteTx implements Tx {
  readonly dialect = 'sqlite' as const;
  private readonly statements = new Map<string, Statement>();
  constructor(private readonly connection: Database.Database) {}

  prepare(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      if (this.statements.size >= STATEMENT_CACHE_MAX) this.statements.clear();
      statement = this.connection.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  async all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return this.prepare(sql).all(...params) as T[];
  }
  async get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return this.prepare(sql).get(...params) as T | undefined;
  }
  async run(sql: string, params: readonly SqlValue[] = []): Promise<{ changes: number }> {
    const result = this.prepare(sql).run(...params);
    return { changes: result.changes };
  }
  exec(sql: string): void {
    this.prepare(sql).run();
  }
}

export class SqliteDb implements Db, BatchRunner {
  readonly dialect = 'sqlite' as const;
  private readonly writer: Database.Database;
  private readonly reader: Database.Database;
  private readonly writeTx: SqliteTx;
  private readonly readTx: SqliteTx;
  private readonly committer: GroupCommitter;
  private closed = false;

  constructor(readonly file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.writer = new Database(file, { timeout: BUSY_TIMEOUT_MS });
    this.writer.pragma('journal_mode = WAL');
    this.writer.pragma('synchronous = FULL');
    this.writer.pragma('foreign_keys = ON');
    this.reader = new Database(file, { timeout: BUSY_TIMEOUT_MS });
    this.reader.pragma('query_only = ON');
    this.writeTx = new SqliteTx(this.writer);
    this.readTx = new SqliteTx(this.reader);
    this.committer = new GroupCommitter(this, 1);
  }

  write<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    return this.committer.submit(work);
  }

  read<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    return work(this.readTx);
  }

  async readSnapshot<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('store is closed');
    // A connection of its own: `work` awaits between its statements, and the
    // shared reader must keep serving other reads the latest commits
    // meanwhile. In WAL mode a read transaction keeps the snapshot of its
    // first statement until it ends.
    const connection = new Database(this.file, { timeout: BUSY_TIMEOUT_MS });
    try {
      connection.pragma('query_only = ON');
      connection.exec('BEGIN');
      try {
        return await work(new SqliteTx(connection));
      } finally {
        connection.exec('COMMIT');
      }
    } finally {
      connection.close();
    }
  }

  async run(ops: ReadonlyArray<(tx: Tx) => Promise<unknown>>) {
    const tx = this.writeTx;
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    tx.exec('BEGIN IMMEDIATE');
    try {
      for (const op of ops) {
        tx.exec('SAVEPOINT op');
        try {
          const value = await op(tx);
          tx.exec('RELEASE op');
          outcomes.push({ ok: true, value });
        } catch (error) {
          tx.exec('ROLLBACK TO op');
          tx.exec('RELEASE op');
          outcomes.push({ ok: false, error });
        }
      }
      tx.exec('COMMIT');
    } catch (error) {
      if (this.writer.inTransaction) tx.exec('ROLLBACK');
      throw error;
    }
    return outcomes;
  }

  async migrate(): Promise<number> {
    const tx = this.writeTx;
    tx.exec('BEGIN IMMEDIATE');
    try {
      tx.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at_ms INTEGER NOT NULL)');
      const done = new Set((await tx.all<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version));
      let applied = 0;
      for (const migration of MIGRATIONS) {
        if (done.has(migration.version)) continue;
        this.writer.exec(migration.sqlite);
        await tx.run('INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (?, ?, ?)', [migration.version, migration.name, Date.now()]);
        applied += 1;
      }
      tx.exec('COMMIT');
      return applied;
    } catch (error) {
      if (this.writer.inTransaction) tx.exec('ROLLBACK');
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Let queued operations finish: they were accepted and must get an answer.
    while (this.committer.pending > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    this.reader.close();
    this.writer.close();
  }
}
