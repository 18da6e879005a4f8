// Production store: PostgreSQL through postgres.js. The same SQL as SQLite
// (placeholders rewritten to $n), prepared statements, group commit over
// several connections, and pipelining inside each group commit.
//
// Why pipelining: a payment operation is a handful of short statements, so
// on PostgreSQL its cost is round trips, not work. The operations of one
// batch therefore run concurrently inside one transaction: their statements
// travel together and the batch costs about as many round trips as its
// longest operation has statements, instead of the sum of all of them.
//
// The price is that operations in a batch are not isolated from each other
// (they interleave like concurrent READ COMMITTED transactions that share
// one set of locks), so invariants must be enforced by single conditional
// statements (`UPDATE ... WHERE balance - ? >= floor`, `INSERT ... ON
// CONFLICT DO NOTHING`), never by a read followed by a write in JavaScript.
// When an operation fails after it wrote something, or a statement error
// aborts the transaction, the batch is rolled back and run again without it,
// and the failed operation is then run alone so its own error is reported
// and nothing it did half-way survives.
import postgres from 'postgres';
import { storeClosedError, type Db, type SqlValue, type Tx } from './db.ts';
import { GroupCommitter, type BatchRunner } from './group-commit.ts';
import { ensureInstallationIdIn } from './installation.ts';
import { MIGRATIONS, translateMigration } from './migrations/index.ts';
import { SECURITY_CHANNEL, writesSecurityTables } from './security-version.ts';
import { StatementBatcher } from './statement-batcher.ts';

const RETRYABLE_SQLSTATES = new Set(['40P01', '40001']);
const TRANSACTION_ABORTED_SQLSTATE = '25P02';
const DEADLOCK_RETRIES_MAX = 8;
/** Any number that fits; chosen so it is unlikely to collide with another app's advisory locks. */
const MIGRATION_LOCK_KEY = 727_274_501;

type Sql = postgres.Sql<Record<string, never>>;
type TxSql = postgres.TransactionSql<Record<string, never>>;

const texts = new Map<string, string>();
function toPgText(sql: string): string {
  let text = texts.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${++n}`);
    texts.set(sql, text);
  }
  return text;
}

function parseInt8(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`bigint out of safe range: ${value}`);
  return n;
}

function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** What the operations of one transaction did that matters after its COMMIT. */
interface TxState {
  /** A statement wrote a table authentication reads (see PostgresDb.securityVersion). */
  wroteSecurityTables: boolean;
}

class PgTx implements Tx {
  readonly dialect = 'postgres' as const;
  /** True once this operation changed a row: its failure then needs a rollback. */
  wrote = false;
  constructor(
    private readonly sql: Sql | TxSql,
    /** Null outside a transaction (plain reads). */
    private readonly state: TxState | null = null,
  ) {}

  private async query(sql: string, params: readonly SqlValue[]): Promise<postgres.RowList<postgres.Row[]>> {
    if (this.state !== null && !this.state.wroteSecurityTables && writesSecurityTables(sql)) {
      // Other processes drop what they keep of these tables when this
      // transaction commits (NOTIFY is delivered at COMMIT, and not at all on rollback).
      this.state.wroteSecurityTables = true;
      await this.sql.unsafe('SELECT pg_notify($1, $2)', [SECURITY_CHANNEL, String(process.pid)], { prepare: true });
    }
    const result = await this.sql.unsafe(toPgText(sql), params as postgres.ParameterOrJSON<never>[], { prepare: true });
    if (result.command !== 'SELECT' && result.count > 0) this.wrote = true;
    return result;
  }
  async all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return [...(await this.query(sql, params))] as T[];
  }
  async get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return (await this.query(sql, params))[0] as T | undefined;
  }
  async run(sql: string, params: readonly SqlValue[] = []): Promise<{ changes: number }> {
    return { changes: (await this.query(sql, params)).count };
  }
  async insert(sql: string, params: readonly SqlValue[], onConflict?: string): Promise<number | null> {
    const conflict = onConflict === undefined ? '' : ` ON CONFLICT (${onConflict}) DO NOTHING`;
    const row = (await this.query(`${sql}${conflict} RETURNING pk`, params))[0];
    return row === undefined ? null : Number(row.pk);
  }
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };
type Op = (tx: Tx) => Promise<unknown>;

/** Thrown inside a batch transaction to roll it back and name the operations to take out. */
class BatchAbort extends Error {
  constructor(readonly culprits: Set<number>) {
    super('batch aborted');
  }
}

/** Splits `options=-c search_path=x` out of a URL into connection parameters. */
function connectionOptions(url: string): { url: string; connection: Record<string, string> } {
  const parsed = new URL(url);
  const connection: Record<string, string> = { application_name: 'payrail' };
  const options = parsed.searchParams.get('options');
  if (options !== null) {
    parsed.searchParams.delete('options');
    connection.options = options;
  }
  return { url: parsed.toString(), connection };
}

export class PostgresDb implements Db, BatchRunner {
  readonly dialect = 'postgres' as const;
  private readonly sql: Sql;
  private readonly committer: GroupCommitter;
  private readonly readTx: PgTx;
  private closed = false;
  private securityVersionValue = 0;
  private listen: Promise<postgres.ListenMeta> | null = null;
  private listening = false;
  /** Db.batched's queues, by key. */
  private readonly batchers = new Map<string, StatementBatcher<unknown, unknown>>();

  constructor(connectionString: string, poolSize: number, schema?: string) {
    const { url, connection } = connectionOptions(connectionString);
    if (schema !== undefined) connection.options = `-c search_path=${schema}`;
    this.sql = postgres(url, {
      max: poolSize,
      prepare: true,
      onnotice: () => undefined,
      connection,
      types: { bigint: { to: 20, from: [20], parse: parseInt8, serialize: (value: number) => String(value) } },
    }) as unknown as Sql;
    this.readTx = new PgTx(this.sql);
    // Few concurrent batches: batches that touch the same hot rows (one
    // merchant's balance) serialize on their locks anyway, and fewer, larger
    // batches share commits better. The rest of the pool serves reads and claims.
    this.committer = new GroupCommitter(this, Math.max(1, Math.floor(poolSize / 4)));
  }

  write<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(storeClosedError());
    return this.committer.submit(work);
  }

  read<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(storeClosedError());
    return work(this.readTx);
  }

  batched<I, R>(key: string, item: I, runAll: (tx: Tx, items: readonly I[]) => Promise<readonly R[]>): Promise<R> {
    if (this.closed) return Promise.reject(storeClosedError());
    let batcher = this.batchers.get(key);
    if (batcher === undefined) {
      // Outside a transaction block the statement is its own transaction:
      // committed (durably: synchronous_commit) when it answers. Two at once:
      // one is filled and sent while the other's commit is flushed.
      const runner = (items: readonly unknown[]) => this.withDeadlockRetry(() => runAll(new PgTx(this.sql), items as I[]));
      batcher = new StatementBatcher<unknown, unknown>(runner, 2);
      this.batchers.set(key, batcher);
    }
    return batcher.submit(item) as Promise<R>;
  }

  readSnapshot<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(storeClosedError());
    // REPEATABLE READ: every statement of the transaction sees the snapshot of its first one.
    return this.sql.begin('isolation level repeatable read read only', (sql) => work(new PgTx(sql as unknown as TxSql))) as Promise<T>;
  }

  async run(ops: readonly Op[]): Promise<Outcome[]> {
    const outcomes: Array<Outcome | undefined> = new Array(ops.length);
    let pending = ops.map((_, i) => i);
    const alone: number[] = [];
    // Each round removes at least one operation, so this ends.
    while (pending.length > 0) {
      try {
        const results = await this.runConcurrently(pending.map((i) => ops[i]!));
        results.forEach((outcome, k) => {
          outcomes[pending[k]!] = outcome;
        });
        pending = [];
      } catch (error) {
        if (!(error instanceof BatchAbort)) throw error;
        const culprits = [...error.culprits].map((k) => pending[k]!);
        alone.push(...culprits);
        pending = pending.filter((i) => !culprits.includes(i));
      }
    }
    for (const i of alone) outcomes[i] = await this.runAlone(ops[i]!);
    return outcomes as Outcome[];
  }

  /** One transaction, operations interleaved; aborts with the culprits if one fails unclean. */
  private async runConcurrently(ops: readonly Op[]): Promise<Outcome[]> {
    return this.withDeadlockRetry(() =>
      this.inTransaction(async (sql, state) => {
        const txs = ops.map(() => new PgTx(sql, state));
        const settled = await Promise.allSettled(ops.map((op, k) => op(txs[k]!)));
        const culprits = new Set<number>();
        let retryable: unknown = null;
        settled.forEach((result, k) => {
          if (result.status === 'fulfilled') return;
          const state = sqlState(result.reason);
          if (state !== undefined && RETRYABLE_SQLSTATES.has(state)) retryable = result.reason;
          else if (state === TRANSACTION_ABORTED_SQLSTATE)
            return; // a victim of another op's error
          else if (state !== undefined || txs[k]!.wrote) culprits.add(k);
        });
        if (retryable !== null) throw retryable;
        if (culprits.size === 0 && settled.some((r) => r.status === 'rejected' && sqlState(r.reason) === TRANSACTION_ABORTED_SQLSTATE)) {
          // Aborted without a visible cause: take out every failed op and let each run alone.
          settled.forEach((r, k) => {
            if (r.status === 'rejected') culprits.add(k);
          });
        }
        if (culprits.size > 0) throw new BatchAbort(culprits);
        return settled.map((r): Outcome => (r.status === 'fulfilled' ? { ok: true, value: r.value } : { ok: false, error: r.reason }));
      }),
    ) as Promise<Outcome[]>;
  }

  /** One operation in its own transaction: its failure rolls back everything it did. */
  private async runAlone(op: Op): Promise<Outcome> {
    class OpFailed extends Error {
      constructor(readonly reason: unknown) {
        super('operation failed');
      }
    }
    try {
      const value = await this.withDeadlockRetry(() =>
        this.inTransaction(async (sql, state) => {
          try {
            return await op(new PgTx(sql, state));
          } catch (error) {
            const state = sqlState(error);
            if (state !== undefined && RETRYABLE_SQLSTATES.has(state)) throw error;
            throw new OpFailed(error);
          }
        }),
      );
      return { ok: true, value };
    } catch (error) {
      return { ok: false, error: error instanceof OpFailed ? error.reason : error };
    }
  }

  /** One write transaction; after its COMMIT, a write to the security tables bumps the version. */
  private async inTransaction<T>(work: (sql: TxSql, state: TxState) => Promise<T>): Promise<T> {
    const state: TxState = { wroteSecurityTables: false };
    const value = (await this.sql.begin((sql) => work(sql as unknown as TxSql, state))) as T;
    if (state.wroteSecurityTables) this.securityVersionValue += 1;
    return value;
  }

  /**
   * Changes once a committed write may have changed what authentication
   * reads. This process's commits bump it once COMMIT has answered; other
   * processes' commits arrive as notifications on SECURITY_CHANNEL, a moment
   * after their COMMIT (on a local network, well under a millisecond). The
   * listening connection is opened at the first call; until it listens, and
   * number, so nothing is kept meanwhile. While a lost connection is being
   * re-established notifications can be missed; security-cache.ts keeps
   * nothing longer than a second, which bounds that.
   */
  securityVersion(): number {
    if (this.listen === null && !this.closed) {
      this.listen = this.sql.listen(
        SECURITY_CHANNEL,
        () => {
          this.securityVersionValue += 1;
        },
        () => {
          this.securityVersionValue += 1;
          this.listening = true;
        },
      );
      // postgres.js listens again by itself after a lost connection (and calls onlisten then).
      // A failure to listen at all leaves caching off; the next call tries again.
      this.listen.catch(() => {
        this.listen = null;
      });
    }
    if (!this.listening) this.securityVersionValue += 1;
    return this.securityVersionValue;
  }

  private async withDeadlockRetry<T>(attempt: () => Promise<T>): Promise<T> {
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (error) {
        const state = sqlState(error);
        if (state === undefined || !RETRYABLE_SQLSTATES.has(state) || n >= DEADLOCK_RETRIES_MAX) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * n));
      }
    }
  }

  /** PostgreSQL's COMMIT is durable by itself (synchronous_commit), so everything committed is on disk. */
  async synced(): Promise<void> {}

  async migrate(): Promise<number> {
    return this.sql.begin(async (sql) => {
      await sql.unsafe('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      await sql.unsafe('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at_ms BIGINT NOT NULL)');
      const done = new Set((await sql.unsafe('SELECT version FROM schema_migrations')).map((r) => Number(r.version)));
      let applied = 0;
      for (const migration of MIGRATIONS) {
        if (done.has(migration.version)) continue;
        await sql.unsafe(translateMigration(migration.sql, 'postgres', `${migration.name}.sql`));
        await sql.unsafe('INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES ($1, $2, $3)', [migration.version, migration.name, Date.now()]);
        applied += 1;
      }
      // Under the migration lock, in the same transaction: the store is never seen migrated without its id.
      await ensureInstallationIdIn(new PgTx(sql as unknown as TxSql), Date.now());
      return applied;
    }) as Promise<number>;
  }

  /** Nothing to do: see Db.scrub. */
  async scrub(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const pending = () => this.committer.pending + [...this.batchers.values()].reduce((sum, b) => sum + b.pending, 0);
    while (pending() > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await this.sql.end({ timeout: 5 });
  }
}
