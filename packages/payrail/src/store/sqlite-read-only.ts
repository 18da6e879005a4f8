// The embedded store opened read-only, for commands that only read
// (`payrail merchant show`, `merchant list`, `ledger verify`): better-sqlite3
// connections with SQLITE_OPEN_READONLY on an existing file, so such a
// command can run beside a live server and can never change, migrate or
// create anything (the writing adapter is sqlite.ts).
import Database from 'better-sqlite3';
import { storeClosedError, type Db, type SqlValue, type Tx } from './db.ts';
import { readInSnapshot } from './sqlite.ts';

/** How long a read waits for a lock held by a checkpoint of the live server. */
const BUSY_TIMEOUT_MS = 10_000;

class ReadOnlyTx implements Tx {
  readonly dialect = 'sqlite' as const;
  constructor(private readonly connection: Database.Database) {}
  async all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return this.connection.prepare(sql).all(...params) as T[];
  }
  async get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return this.connection.prepare(sql).get(...params) as T | undefined;
  }
  async run(): Promise<{ changes: number }> {
    throw new Error('the store is open read-only');
  }
  async insert(): Promise<number | null> {
    throw new Error('the store is open read-only');
  }
}

const open = (file: string) => new Database(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });

export class ReadOnlySqliteDb implements Db {
  readonly dialect = 'sqlite' as const;
  private readonly connection: Database.Database;
  private closed = false;

  /** Throws when `file` does not exist (better-sqlite3's fileMustExist): nothing is created. */
  constructor(readonly file: string) {
    this.connection = open(file);
  }

  write<T>(): Promise<T> {
    return Promise.reject(new Error('the store is open read-only'));
  }

  read<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(storeClosedError());
    return work(new ReadOnlyTx(this.connection));
  }

  async readSnapshot<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.closed) throw storeClosedError();
    // A connection of its own, as in sqlite.ts: a read transaction keeps the snapshot of its first statement.
    const connection = open(this.file);
    return readInSnapshot(connection, () => work(new ReadOnlyTx(connection)));
  }

  /** Nothing is ever written through this store. */
  async synced(): Promise<void> {}

  migrate(): Promise<number> {
    return Promise.reject(new Error('the store is open read-only; run `payrail migrate` to update its schema'));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.connection.close();
  }
}
