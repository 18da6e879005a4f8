// Production store: PostgreSQL through node-postgres. Same SQL as SQLite
// (placeholders rewritten to $n), named prepared statements per connection,
// group commit over several connections, and a whole-batch retry when
// PostgreSQL aborts a transaction for a deadlock or serialization failure.
import pg from 'pg';
import type { Db, SqlValue, Tx } from './db.ts';
import { GroupCommitter, type BatchRunner } from './group-commit.ts';
import { MIGRATIONS } from './migrations/index.ts';

const RETRYABLE_SQLSTATES = new Set(['40P01', '40001']);
const BATCH_ATTEMPTS_MAX = 8;
/** Any number that fits; chosen so it is unlikely to collide with another app's advisory locks. */
const MIGRATION_LOCK_KEY = 727_274_501;

interface Query {
  name: string;
  text: string;
}

const queries = new Map<string, Query>();
function toQuery(sql: string): Query {
  let query = queries.get(sql);
  if (query === undefined) {
    let n = 0;
    query = { name: `q${queries.size}`, text: sql.replace(/\?/g, () => `$${++n}`) };
    queries.set(sql, query);
  }
  return query;
}

function parseInt8(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`bigint out of safe range: ${value}`);
  return n;
}

class PgTx implements Tx {
  readonly dialect = 'postgres' as const;
  constructor(private readonly client: pg.Pool | pg.PoolClient) {}
  private async query(sql: string, params: readonly SqlValue[]) {
    const query = toQuery(sql);
    return this.client.query({ name: query.name, text: query.text, values: params as unknown[] });
  }
  async all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return (await this.query(sql, params)).rows as T[];
  }
  async get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return (await this.query(sql, params)).rows[0] as T | undefined;
  }
  async run(sql: string, params: readonly SqlValue[] = []): Promise<{ changes: number }> {
    return { changes: (await this.query(sql, params)).rowCount ?? 0 };
  }
}

export class PostgresDb implements Db, BatchRunner {
  readonly dialect = 'postgres' as const;
  private readonly pool: pg.Pool;
  private readonly committer: GroupCommitter;
  private readonly readTx: PgTx;
  private closed = false;

  constructor(connectionString: string, poolSize: number, schema?: string) {
    const types = {
      getTypeParser: ((oid: number, format?: string) =>
        oid === 20 ? parseInt8 : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    };
    this.pool = new pg.Pool({
      connectionString,
      max: poolSize,
      types,
      ...(schema !== undefined ? { options: `-c search_path=${schema}` } : {}),
    });
    this.pool.on('error', () => {
      // An idle client died (server restart); the pool replaces it. Nothing is lost.
    });
    this.readTx = new PgTx(this.pool);
    // Leave two connections for reads and the worker's claims.
    this.committer = new GroupCommitter(this, Math.max(1, poolSize - 2));
  }

  write<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    return this.committer.submit(work);
  }

  read<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    return work(this.readTx);
  }

  async run(ops: ReadonlyArray<(tx: Tx) => Promise<unknown>>) {
    const client = await this.pool.connect();
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.runOnce(client, ops);
        } catch (error) {
          const code = (error as { code?: string }).code;
          if (code === undefined || !RETRYABLE_SQLSTATES.has(code) || attempt >= BATCH_ATTEMPTS_MAX) throw error;
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
        }
      }
    } finally {
      client.release();
    }
  }

  private async runOnce(client: pg.PoolClient, ops: ReadonlyArray<(tx: Tx) => Promise<unknown>>) {
    const tx = new PgTx(client);
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    await client.query('BEGIN');
    try {
      const single = ops.length === 1;
      for (const op of ops) {
        // A lone operation needs no savepoint: its failure rolls the whole transaction back.
        if (!single) await client.query('SAVEPOINT op');
        try {
          const value = await op(tx);
          if (!single) await client.query('RELEASE SAVEPOINT op');
          outcomes.push({ ok: true, value });
        } catch (error) {
          const code = (error as { code?: string }).code;
          if (code !== undefined && RETRYABLE_SQLSTATES.has(code)) throw error;
          if (single) {
            await client.query('ROLLBACK');
            return [{ ok: false as const, error }];
          }
          await client.query('ROLLBACK TO SAVEPOINT op');
          await client.query('RELEASE SAVEPOINT op');
          outcomes.push({ ok: false, error });
        }
      }
      await client.query('COMMIT');
      return outcomes;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  async migrate(): Promise<number> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at_ms BIGINT NOT NULL)');
      const done = new Set((await client.query('SELECT version FROM schema_migrations')).rows.map((r: { version: number }) => r.version));
      let applied = 0;
      for (const migration of MIGRATIONS) {
        if (done.has(migration.version)) continue;
        await client.query(migration.postgres);
        await client.query('INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES ($1, $2, $3)', [migration.version, migration.name, Date.now()]);
        applied += 1;
      }
      await client.query('COMMIT');
      return applied;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.committer.pending > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await this.pool.end();
  }
}
