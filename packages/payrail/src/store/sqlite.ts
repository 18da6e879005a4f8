// Embedded store: SQLite through better-sqlite3, in WAL mode. One writer
// connection (SQLite has one writer anyway) fed by group commit, and one
// reader connection so reads never wait behind a commit.
//
// Durability: every commit is on disk before anyone is answered, as with
// synchronous=FULL, but the disk flush does not stall the process. SQLite
// runs with synchronous=NORMAL (a commit appends to the WAL without flushing
// it) and this adapter flushes the WAL file itself with fdatasync on libuv's
// thread pool after each batch; callers hear back only once that flush has
// covered their commit. Meanwhile the next batch already runs, and one flush
// covers every batch committed before it started. The WAL is append-only and
// a flush covers everything written before it, so an acknowledged commit can
// never be lost while an earlier one survives. Checkpoints keep SQLite's own
// flushes (WAL before the database file), so the database stays consistent.
//
// The files hold card data (sealed) and credential hashes, so only their
// owner may read them: the directory is created 0700 and the database 0600
// before SQLite opens it (SQLite gives its -wal and -shm files the
// database's mode). Deleted content is overwritten (secure_delete), and
// scrub() empties the write-ahead log, where old page images would survive.
//
// Checkpoints (copying the log back into the database) run on a thread of
// their own once the process has written enough for them to matter (see
// sqlite-checkpointer.ts); meanwhile the writer never sleeps on a lock: a
// transaction that finds the store locked (a checkpoint finishing, another
// process writing) is retried a moment later, with the event loop free.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { storeClosedError, type Db, type SqlValue, type Tx } from './db.ts';
import { CommitSignal } from './commit-signal.ts';
import { GroupCommitter, type BatchRunner } from './group-commit.ts';
import { ensureInstallationIdIn } from './installation.ts';
import { MIGRATIONS, translateMigration } from './migrations/index.ts';
import { CHECKPOINT_DEFAULTS, Checkpointer } from './sqlite-checkpointer.ts';
import { writesSecurityTables } from './security-version.ts';
import { writeLimits } from './sqlite-limits.ts';
import { rowBuilder, type RowBuilder } from './sqlite-rows.ts';

type Statement = Database.Statement<unknown[], unknown>;
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** How long a connection waits for another process's write lock (the CLI, a worker). */
const BUSY_TIMEOUT_MS = 10_000;
/** The writer's first and longest pause between two tries at a locked store. */
const BEGIN_RETRY_MS_MIN = 1;
const BEGIN_RETRY_MS_MAX = 25;
/**
 * Log size past which checkpoints move to their own thread: about what
 * SQLite's own automatic checkpoint lets grow (1,000 pages), so short-lived
 * processes (the CLI, tests) never start a thread.
 */
const CHECKPOINT_THREAD_START_BYTES = 4 * 1024 * 1024;

export interface SqliteOptions {
  /** Log size past which checkpoints move to a thread (bytes), and the thread's settings. */
  readonly checkpointThreadStartBytes?: number;
  readonly checkpointIntervalMs?: number;
  readonly checkpointRestartFrames?: number;
  /**
   * Shared with the other threads of this process that write the same file
   * (commit-signal.ts): a begin that finds the file locked is woken when
   * their transaction ends instead of polling.
   */
  readonly commitSignal?: SharedArrayBuffer;
}
const STATEMENT_CACHE_MAX = 500;
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
/** The database and the files SQLite keeps beside it. */
const FILE_SUFFIXES = ['', '-wal', '-shm', '-journal'];

/** Creates the directory and database file private to this user, and makes existing ones so. */
function preparePrivateFiles(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: DIR_MODE });
  fs.closeSync(fs.openSync(file, 'a', FILE_MODE));
  for (const suffix of FILE_SUFFIXES) {
    try {
      if ((fs.statSync(`${file}${suffix}`).mode & 0o077) !== 0) fs.chmodSync(`${file}${suffix}`, FILE_MODE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

/**
 * Runs `work` in one read transaction on a connection of its own, then
 * closes the connection: the transaction keeps the snapshot of its first
 * statement (WAL mode) until it ends.
 */
export async function readInSnapshot<T>(connection: Database.Database, work: () => Promise<T>): Promise<T> {
  try {
    connection.exec('BEGIN');
    try {
      return await work();
    } finally {
      connection.exec('COMMIT');
    }
  } finally {
    connection.close();
  }
}

/** A cached statement, and for one that returns rows the builder of its row objects (see sqlite-rows.ts). */
interface Prepared {
  readonly statement: Statement;
  /** Null: better-sqlite3 builds the rows itself (no rows, or a column name a literal cannot hold). */
  readonly build: RowBuilder | null;
}

class SqliteTx implements Tx {
  readonly dialect = 'sqlite' as const;
  private readonly statements = new Map<string, Prepared>();
  /** Set when a statement wrote a table authentication reads; the adapter looks after COMMIT. */
  wroteSecurityTables = false;
  /**
   * Set when a statement may have changed a row since the adapter last
   * cleared it: one that reported changes, one that can write and was run
   * for its rows (RETURNING), or anything run through exec(). Group commit
   * reads it to tell an operation that failed before writing anything
   * (nothing to undo) from one that must be undone.
   */
  wrote = false;
  constructor(private readonly connection: Database.Database) {}

  private prepared(sql: string): Prepared {
    let prepared = this.statements.get(sql);
    if (prepared === undefined) {
      if (this.statements.size >= STATEMENT_CACHE_MAX) this.statements.clear();
      const statement = this.connection.prepare(sql);
      const build = statement.reader ? rowBuilder(statement.columns().map((column) => column.name)) : null;
      if (build !== null) statement.raw(true);
      prepared = { statement, build };
      this.statements.set(sql, prepared);
    }
    return prepared;
  }

  /** For statements run for their effect (run, insert, control): one that returns rows answers raw arrays, so reads go through get() and all(). */
  private statement(sql: string): Statement {
    return this.prepared(sql).statement;
  }

  async all<T>(text: string, values: readonly SqlValue[] = []): Promise<T[]> {
    const { sql, params } = writeLimits(text, values) ?? { sql: text, params: values };
    const { statement, build } = this.prepared(sql);
    if (writesSecurityTables(sql)) this.wroteSecurityTables = true;
    const rows = statement.all(...params);
    if (!statement.readonly) this.wrote = true;
    if (build === null) return rows as T[];
    for (let i = 0; i < rows.length; i++) rows[i] = build(rows[i] as unknown[]);
    return rows as T[];
  }
  async get<T>(text: string, values: readonly SqlValue[] = []): Promise<T | undefined> {
    const { sql, params } = writeLimits(text, values) ?? { sql: text, params: values };
    const { statement, build } = this.prepared(sql);
    if (writesSecurityTables(sql)) this.wroteSecurityTables = true;
    const row = statement.get(...params);
    if (!statement.readonly) this.wrote = true;
    if (build === null || row === undefined) return row as T | undefined;
    return build(row as unknown[]) as T;
  }
  async run(text: string, values: readonly SqlValue[] = []): Promise<{ changes: number }> {
    const { sql, params } = writeLimits(text, values) ?? { sql: text, params: values };
    const statement = this.statement(sql);
    if (writesSecurityTables(sql)) this.wroteSecurityTables = true;
    const result = statement.run(...params);
    if (result.changes > 0) this.wrote = true;
    return { changes: result.changes };
  }
  async insert(sql: string, params: readonly SqlValue[], onConflict?: string): Promise<number | null> {
    const statement = this.statement(sql);
    if (writesSecurityTables(sql)) this.wroteSecurityTables = true;
    try {
      const pk = Number(statement.run(...params).lastInsertRowid);
      this.wrote = true;
      return pk;
    } catch (error) {
      // Only the refusal of that key: any other constraint's stays an error.
      // SQLite has taken back the refused statement itself, so nothing was written.
      if (onConflict !== undefined && isUniqueRefusalOf(error, onConflict)) return null;
      throw error;
    }
  }
  exec(sql: string): void {
    this.wrote = true;
    this.control(sql);
  }
  /** Transaction control of the adapter itself (BEGIN, COMMIT, savepoints): writes nothing of its own. */
  control(sql: string): void {
    this.statement(sql).run();
  }
}

/** True when `error` is SQLite refusing a row for a duplicate of exactly the unique key `columns` ("a, b"). */
function isUniqueRefusalOf(error: unknown, columns: string): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code !== 'SQLITE_CONSTRAINT_UNIQUE' || typeof message !== 'string') return false;
  // "UNIQUE constraint failed: transfers.merchant_id, transfers.id"
  const refused = message
    .replace(/^UNIQUE constraint failed: /, '')
    .split(', ')
    .map((column) => column.replace(/^[^.]*\./, ''));
  return (
    refused.join(', ') ===
    columns
      .split(',')
      .map((column) => column.trim())
      .join(', ')
  );
}

/** The read transactions open in this thread: a commit of any store of the thread ends them all (see ReadTx). */
const openReads = new Set<ReadTx>();

/** Ends every read transaction of this thread, so the next read of each store sees what was just committed. */
function endReadsOfThisThread(): void {
  for (const reads of openReads) reads.end();
}

/**
 * Plain reads, on the reader connection, in one read transaction per turn of
 * the event loop: the first read of a turn begins it, and it ends when the
 * turn does (setImmediate), or at once when a write transaction of this
 * thread commits or (through the commit signal) one of another thread of
 * this process does. A read statement outside a transaction begins and ends
 * a read transaction of its own, and that costs more than the read: on a
 * warm cache a status read measured 22-27 us alone and 9 us sharing a
 * transaction with others. So a read never misses a commit that anyone in
 * this process could have heard of before it; a commit of another process
 * shows from the next turn on, which to the reader is the same as having
 * read a moment earlier. The writer never serves reads (a read there would
 * see a batch still being written, and would pay the same cost per
 * statement). A statement that would write goes to the reader too, which
 * refuses it (query_only).
 */
class ReadTx implements Tx {
  readonly dialect = 'sqlite' as const;
  private ending: NodeJS.Immediate | null = null;
  /** The commit signal's generation when the open transaction began. */
  private begunAt = 0;
  private readonly endTurn = (): void => {
    this.ending = null;
    this.end();
  };
  constructor(
    private readonly reader: Database.Database,
    private readonly readerTx: SqliteTx,
    private readonly commitSignal: CommitSignal | null,
  ) {}

  private inTurn(): SqliteTx {
    if (this.reader.inTransaction && this.commitSignal !== null && this.commitSignal.generation() !== this.begunAt) this.end();
    if (!this.reader.inTransaction) {
      this.begunAt = this.commitSignal?.generation() ?? 0;
      this.readerTx.control('BEGIN');
      openReads.add(this);
      this.ending = setImmediate(this.endTurn);
    }
    return this.readerTx;
  }
  /** Ends the open read transaction, if any: the next read takes a new snapshot. */
  end(): void {
    if (this.ending !== null) {
      clearImmediate(this.ending);
      this.ending = null;
    }
    openReads.delete(this);
    if (this.reader.open && this.reader.inTransaction) this.readerTx.control('COMMIT');
  }
  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.inTurn().all<T>(sql, params);
  }
  get<T>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return this.inTurn().get<T>(sql, params);
  }
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    return this.readerTx.run(sql, params);
  }
  insert(sql: string, params: readonly SqlValue[], onConflict?: string): Promise<number | null> {
    return this.readerTx.insert(sql, params, onConflict);
  }
}

export class SqliteDb implements Db, BatchRunner {
  readonly dialect = 'sqlite' as const;
  private readonly writer: Database.Database;
  private readonly reader: Database.Database;
  private readonly writeTx: SqliteTx;
  private readonly readTx: ReadTx;
  private readonly committer: GroupCommitter;
  private closed = false;
  /** The WAL file, opened at the first flush (it exists once something was committed). */
  private walFd: number | null = null;
  /** The flush under way, and the one queued behind it for commits it may not cover. */
  private flushRunning: Promise<void> | null = null;
  private flushQueued: Promise<void> | null = null;
  /** Started once the log grows past its threshold; null before (and if the thread died). */
  private checkpointer: Checkpointer | null = null;
  /** See securityVersion(): bumped by this process's commits and by any other connection's. */
  private securityVersionValue = 0;
  private readonly dataVersion: Database.Statement<[], number>;
  private lastDataVersion: number;
  private dataVersionChecked = false;
  private readonly commitSignal: CommitSignal | null;
  /** Batches rolled back and run again with savepoints because an operation failed after writing (see run()). */
  batchesRunAgain = 0;

  constructor(
    readonly file: string,
    private readonly options: SqliteOptions = {},
  ) {
    preparePrivateFiles(file);
    this.writer = new Database(file, { timeout: BUSY_TIMEOUT_MS });
    this.writer.pragma('journal_mode = WAL');
    this.writer.pragma('synchronous = NORMAL');
    this.writer.pragma('foreign_keys = ON');
    // Deleted and overwritten content is zeroed, not left in free space.
    this.writer.pragma('secure_delete = ON');
    // A batch run again with savepoints (see run()), and any statement that
    // SQLite must be able to take back alone, keeps a journal (copies of the
    // pages it changes) that otherwise spills to a temporary file past
    // 64 KiB: two more write calls per changed page (27.6 instead of 6.6 per
    // execute as measured when every operation had a savepoint), and page
    // images left in deleted files. In memory it is freed with the transaction.
    this.writer.pragma('temp_store = MEMORY');
    // From here on the writer never waits inside SQLite (that would stop the event loop): see begin().
    this.writer.pragma('busy_timeout = 0');
    this.reader = new Database(file, { timeout: BUSY_TIMEOUT_MS });
    this.reader.pragma('query_only = ON');
    this.writeTx = new SqliteTx(this.writer);
    this.committer = new GroupCommitter(this, 1);
    this.commitSignal = options.commitSignal === undefined ? null : new CommitSignal(options.commitSignal);
    this.readTx = new ReadTx(this.reader, new SqliteTx(this.reader), this.commitSignal);
    this.dataVersion = this.writer.prepare<[], number>('PRAGMA data_version').pluck();
    this.lastDataVersion = this.dataVersion.get()!;
  }

  /**
   * Changes whenever a committed write may have changed what authentication
   * reads. This process's own commits bump it right after COMMIT, in the
   * same synchronous step, so no read can see the committed change while the
   * old version still stands. Commits of other connections (another process,
   * the CLI, a checkpoint) show in the writer's data_version, which changes
   * only for other connections' commits, and bump it too (a checkpoint does
   * so needlessly, which only costs a cache miss).
   */
  securityVersion(): number {
    // A closed store keeps nothing (its reads refuse anyway).
    if (this.closed) return ++this.securityVersionValue;
    if (!this.dataVersionChecked) {
      // Once per turn of the event loop: the requests one turn handles arrived
      // together and are concurrent with any commit made meanwhile.
      this.dataVersionChecked = true;
      setImmediate(() => {
        this.dataVersionChecked = false;
      });
      const dataVersion = this.dataVersion.get()!;
      if (dataVersion !== this.lastDataVersion) {
        this.lastDataVersion = dataVersion;
        this.securityVersionValue += 1;
        // What is read under the new version must include the commit that made it: a read
        // transaction begun before that commit (ReadTx keeps one for the turn) ends here.
        this.readTx.end();
      }
    }
    return this.securityVersionValue;
  }

  write<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(storeClosedError());
    return this.committer.submit(work);
  }

  read<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(storeClosedError());
    return work(this.readTx);
  }

  /**
   * Resolves once every commit made before the call is on disk. A flush that
   * is already running may have started before the caller's commit, so a
   * caller arriving meanwhile waits for the next one (shared by all of them).
   */
  durable(): Promise<void> {
    if (this.flushRunning === null) {
      this.flushRunning = this.flushWal().finally(() => {
        this.flushRunning = null;
      });
      return this.flushRunning;
    }
    this.flushQueued ??= this.flushRunning.then(() => {
      this.flushQueued = null;
      return this.durable();
    });
    return this.flushQueued;
  }

  synced(): Promise<void> {
    return this.durable();
  }

  private flushWal(): Promise<void> {
    this.walFd ??= fs.openSync(`${this.file}-wal`, 'r');
    const fd = this.walFd;
    if (this.checkpointer === null && !this.closed && fs.fstatSync(fd).size >= (this.options.checkpointThreadStartBytes ?? CHECKPOINT_THREAD_START_BYTES)) {
      this.startCheckpointer();
    }
    return new Promise((resolve, reject) => fs.fdatasync(fd, (error) => (error === null ? resolve() : reject(error))));
  }

  private startCheckpointer(): void {
    const checkpointer = new Checkpointer(
      {
        file: this.file,
        intervalMs: this.options.checkpointIntervalMs ?? CHECKPOINT_DEFAULTS.intervalMs,
        restartFrames: this.options.checkpointRestartFrames ?? CHECKPOINT_DEFAULTS.restartFrames,
      },
      () => undefined,
      () => {
        // The thread is gone (it never is on purpose before close): SQLite's own checkpoints take over again.
        if (this.checkpointer === checkpointer) this.checkpointer = null;
        if (!this.closed) this.writer.pragma('wal_autocheckpoint = 1000');
      },
    );
    this.checkpointer = checkpointer;
    this.writer.pragma('wal_autocheckpoint = 0');
  }

  /** True when the checkpoint thread runs (for tests). */
  get checkpointsOffThread(): boolean {
    return this.checkpointer !== null;
  }

  /**
   * BEGIN IMMEDIATE, waiting without blocking the event loop while another
   * connection holds the write lock (a finishing checkpoint, the CLI, a test).
   */
  private async begin(): Promise<void> {
    const deadlineMs = Date.now() + BUSY_TIMEOUT_MS;
    for (let pauseMs = BEGIN_RETRY_MS_MIN; ; pauseMs = Math.min(pauseMs * 2, BEGIN_RETRY_MS_MAX)) {
      // Read before trying, so a transaction of another thread ending in between still wakes the wait.
      const generation = this.commitSignal?.generation() ?? 0;
      try {
        this.writeTx.control('BEGIN IMMEDIATE');
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= deadlineMs) throw error;
      }
      if (this.commitSignal !== null) await this.commitSignal.endedSince(generation, pauseMs);
      else await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }

  async readSnapshot<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.closed) throw storeClosedError();
    // A connection of its own: `work` awaits between its statements, and the
    // shared reader must keep serving other reads the latest commits
    // meanwhile. In WAL mode a read transaction keeps the snapshot of its
    // first statement until it ends.
    const connection = new Database(this.file, { timeout: BUSY_TIMEOUT_MS });
    return readInSnapshot(connection, () => {
      connection.pragma('query_only = ON');
      return work(new SqliteTx(connection));
    });
  }

  /**
   * One batch of the group commit in one transaction. The operations run one
   * after the other with nothing between them: an operation that fails
   * before it wrote anything (most refusals: a duplicate id, a floor, a
   * declined card) leaves nothing to undo, and the batch goes on. Only one
   * that fails after writing, or with an error of SQLite's, must be undone:
   * then the whole transaction is rolled back and the batch runs again with
   * each operation in a savepoint of its own (operations may run more than
   * once: see Db.write). Savepoints on every operation were measured at
   * about 6 us of the writer's time per execute (each page an operation
   * changes is first copied to the savepoint's journal), 4% of executes.
   */
  async run(ops: ReadonlyArray<(tx: Tx) => Promise<unknown>>): Promise<Outcome[]> {
    const tx = this.writeTx;
    await this.begin();
    try {
      let outcomes = await this.runAll(ops, false);
      if (outcomes === null) {
        this.batchesRunAgain += 1;
        if (this.writer.inTransaction) tx.control('ROLLBACK');
        tx.wroteSecurityTables = false;
        await this.begin();
        outcomes = (await this.runAll(ops, true))!;
      }
      tx.control('COMMIT');
      // Before anything else runs: see securityVersion() and ReadTx.
      if (tx.wroteSecurityTables) this.securityVersionValue += 1;
      endReadsOfThisThread();
      return outcomes;
    } catch (error) {
      if (this.writer.inTransaction) tx.control('ROLLBACK');
      throw error;
    } finally {
      tx.wroteSecurityTables = false;
      this.commitSignal?.ended();
    }
  }

  /**
   * Runs the operations in the open transaction. Without savepoints, returns
   * null as soon as one failed in a way only a rollback can undo; with them,
   * each failure is rolled back alone.
   */
  private async runAll(ops: ReadonlyArray<(tx: Tx) => Promise<unknown>>, savepoints: boolean): Promise<Outcome[] | null> {
    const tx = this.writeTx;
    const outcomes: Outcome[] = [];
    for (const op of ops) {
      if (savepoints) tx.control('SAVEPOINT op');
      tx.wrote = false;
      try {
        const value = await op(tx);
        if (savepoints) tx.control('RELEASE op');
        outcomes.push({ ok: true, value });
      } catch (error) {
        if (savepoints) {
          tx.control('ROLLBACK TO op');
          tx.control('RELEASE op');
        } else if (tx.wrote || error instanceof Database.SqliteError || !this.writer.inTransaction) {
          return null;
        }
        outcomes.push({ ok: false, error });
      }
    }
    return outcomes;
  }

  async migrate(): Promise<number> {
    const tx = this.writeTx;
    // SQLite changes a table's definition (a constraint dropped) only by
    // rebuilding the table, which its documented procedure does with
    // foreign-key enforcement off (dropping the old table must not touch
    // the rows that name it) and every key checked before the commit. The
    // pragma is a no-op inside a transaction, so it is set around it.
    this.writer.pragma('foreign_keys = OFF');
    try {
      return await this.migrateInTransaction(tx);
    } finally {
      this.writer.pragma('foreign_keys = ON');
    }
  }

  private async migrateInTransaction(tx: SqliteTx): Promise<number> {
    await this.begin();
    try {
      tx.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at_ms INTEGER NOT NULL)');
      const done = new Set((await tx.all<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version));
      let applied = 0;
      for (const migration of MIGRATIONS) {
        if (done.has(migration.version)) continue;
        this.writer.exec(translateMigration(migration.sql, 'sqlite', `${migration.name}.sql`));
        await tx.run('INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (?, ?, ?)', [migration.version, migration.name, Date.now()]);
        applied += 1;
      }
      // In the migration's transaction: the store is never seen migrated without its id.
      await ensureInstallationIdIn(tx, Date.now());
      const broken = applied === 0 ? [] : (this.writer.pragma('foreign_key_check') as Array<{ table: string; rowid: number; parent: string }>);
      if (broken.length > 0) {
        const first = broken[0]!;
        throw new Error(`migration left ${broken.length} row(s) whose foreign key names nothing, first ${first.table} rowid ${first.rowid} -> ${first.parent}`);
      }
      tx.control('COMMIT');
      this.securityVersionValue += 1;
      endReadsOfThisThread();
      return applied;
    } catch (error) {
      if (this.writer.inTransaction) tx.control('ROLLBACK');
      throw error;
    } finally {
      this.commitSignal?.ended();
    }
  }

  async scrub(): Promise<boolean> {
    if (this.closed) return false;
    // The log can be emptied only once no reader uses it: this thread's read transactions end here.
    endReadsOfThisThread();
    // With the checkpoint thread running, it does the work, off this thread.
    if (this.checkpointer !== null) return this.checkpointer.truncate();
    // A connection of its own that never waits: the writer's busy handler
    // would block this thread while a reader here or a writer elsewhere is
    // busy. Busy now means "not this time"; the caller tries again later.
    const connection = new Database(this.file, { timeout: 0 });
    try {
      const [result] = connection.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
      return result !== undefined && result.busy === 0;
    } finally {
      connection.close();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Let queued operations finish: they were accepted and must get an answer.
    while (this.committer.pending > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await this.checkpointer?.close();
    this.checkpointer = null;
    this.readTx.end();
    this.reader.close();
    this.writer.close();
    if (this.walFd !== null) fs.closeSync(this.walFd);
  }
}
