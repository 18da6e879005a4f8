// The store's driver-level contract. SQL is written once, with `?`
// placeholders and the common subset of SQLite and PostgreSQL; each adapter
// prepares and caches statements and implements the transaction boundary.

import { StoreClosedError } from '../errors.ts';

export type SqlValue = string | number | bigint | null | Buffer;

/** What a closed store answers every call with (see StoreClosedError). */
export function storeClosedError(): StoreClosedError {
  return new StoreClosedError();
}

export type Row = Record<string, unknown>;

/** One connection's view inside a transaction (or a read). */
export interface Tx {
  readonly dialect: Dialect;
  all<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  get<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }>;
  /**
   * Runs an INSERT of one row (`INSERT INTO t (...) VALUES (...)`, nothing
   * after the values) into a table keyed by an integer `pk`, and returns the
   * new row's pk; or null when `onConflict` names a unique key (its columns,
   * as in `ON CONFLICT (...)`) that a row already has with these values.
   * PostgreSQL appends `ON CONFLICT (...) DO NOTHING RETURNING pk` (a refused
   * row would abort its whole transaction). SQLite runs the plain INSERT,
   * takes the key from the connection and hears of a conflict from the
   * refusal itself: measured at about half the cost of the RETURNING form,
   * which on the execute path was the costliest statement.
   */
  insert(sql: string, params: readonly SqlValue[], onConflict?: string): Promise<number | null>;
}

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  readonly dialect: Dialect;
  /**
   * Runs `work` in a write transaction. Concurrent calls are group-committed:
   * several operations share one transaction (a failing one is rolled back
   * alone: see each adapter's run()) and one durable commit. The promise settles
   * only after that commit, so nothing is answered before it is durable.
   * `work` must do database work only: no network calls, no timers, and it
   * may run more than once (a batch is retried after a deadlock), so it must
   * have no effect outside the database. On PostgreSQL the operations of a
   * batch run interleaved in one transaction (their statements pipelined), so
   * enforce invariants with single conditional statements (`UPDATE ... WHERE
   * balance - ? >= floor`, `INSERT ... ON CONFLICT DO NOTHING RETURNING`),
   * never with a read followed by a dependent write in JavaScript.
   */
  write<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /** Runs `work` on committed data, outside any write transaction. */
  read<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Runs `work` on one snapshot of committed data: all its statements see the
   * store as of the same moment, however many writes commit meanwhile (a
   * plain `read` may see a commit land between two statements). It costs a
   * read transaction, and on SQLite a connection of its own, so it is for
   * reads that must agree with each other (the ledger verifier), not for
   * ordinary reads.
   */
  readSnapshot<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Resolves once everything committed before the call is on disk. Writes
   * already wait for it before they answer; code that acts outside the store
   * on a row it read (a payout submitted to a network) waits for it first, so
   * it never acts on a commit a crash could still take back.
   */
  synced(): Promise<void>;
  /** Applies pending migrations; safe to call from several processes at once. */
  migrate(): Promise<number>;
  /**
   * Makes erased data unrecoverable from the store's own files where the
   * engine allows it: SQLite copies the write-ahead log into the database
   * (whose freed space it zeroes, secure_delete) and truncates the log;
   * returns false when a reader or writer elsewhere kept it from finishing
   * (try again later). PostgreSQL reclaims old row versions by autovacuum on
   * its own schedule; card data there is made unreadable by its encryption
   * (src/crypto/card-cipher.ts), so this does nothing and returns true.
   * Optional: a store that never writes (a read-only view) has nothing to scrub.
   */
  scrub?(): Promise<boolean>;
  /**
   * A number that changes once a committed write may have changed what
   * authentication reads (credentials, sources, PIN and address locks; see
   * security-version.ts), so reads of those can be kept until it changes
   * (security-cache.ts). Absent: nothing may be kept.
   */
  securityVersion?(): number;
  /**
   * Present where one statement can write many operations' items at once and
   * is worth it (PostgreSQL): queues `item` with the other items given under
   * the same `key` meanwhile, and `runAll` writes them all with one
   * statement in a transaction of its own (one round trip, its locks held
   * only while the server runs it). Resolves with this item's result once
   * that statement is durable. `runAll` must be a single statement (it
   * commits by itself) whose results say, item by item, what was written;
   * when it fails, every item of it fails with its error. A key names one
   * kind of statement: the `runAll` given with a key's first item serves
   * every later item of that key. Absent: callers write each item in `write`.
   * A read statement may be batched the same way (one statement answers
   * the reads of the moment); its callers then read each item in `read`
   * where this is absent.
   */
  batched?<I, R>(key: string, item: I, runAll: (tx: Tx, items: readonly I[]) => Promise<readonly R[]>): Promise<R>;
  close(): Promise<void>;
}

/** Ops per group commit; bounds both latency and the work redone on a retry. */
export const GROUP_COMMIT_OPS_MAX = 256;
