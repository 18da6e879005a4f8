// Checkpoints of the embedded store, off the main thread.
//
// SQLite copies the write-ahead log back into the database file in a
// "checkpoint", and by default the connection that commits does it, after
// its commit, every 1,000 log pages: the main thread then writes the pages
// and waits for two disk flushes while every request waits behind it (under
// load, 4% of the commits took 90% of the commit time). Once a busy process
// has written that much, this moves the work to a thread with a connection
// of its own: it copies what is in the log while the main thread keeps
// committing (a PASSIVE checkpoint never blocks a writer), and when the log
// has grown past a bound it finishes with a RESTART checkpoint, which waits
// for the writer's current transaction, copies the few pages committed since
// the passive one and lets the next transaction write the log from its start,
// so the log stays bounded. The erasure scrub (a TRUNCATE checkpoint) runs
// here too. SQLite's locks keep all of this consistent across connections;
// a checkpoint flushes the log before copying it, so it never undoes the
// durability the main thread's own flushes give.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export interface CheckpointerOptions {
  /** The database file. */
  readonly file: string;
  /** How often the thread copies the log into the database. */
  readonly intervalMs: number;
  /** Log size (in pages) past which the thread restarts the log. */
  readonly restartFrames: number;
}

export const CHECKPOINT_DEFAULTS = { intervalMs: 200, restartFrames: 16_384 } as const;
/** How long a RESTART or TRUNCATE checkpoint waits for the writer and readers before giving up until next time. */
const CHECKPOINT_BUSY_TIMEOUT_MS = 250;

// The thread's code: plain CommonJS, so it runs the same from the sources
// (tsx) and from the build. It answers each request with its id.
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: 0 });
db.pragma('wal_autocheckpoint = 0');
function checkpoint(mode, busyTimeoutMs) {
  db.pragma('busy_timeout = ' + busyTimeoutMs);
  const [row] = db.pragma('wal_checkpoint(' + mode + ')');
  return { busy: row.busy, log: row.log, checkpointed: row.checkpointed };
}
function round() {
  const passive = checkpoint('PASSIVE', 0);
  if (passive.log >= workerData.restartFrames) checkpoint('RESTART', workerData.busyTimeoutMs);
}
const timer = setInterval(() => {
  try { round(); } catch (error) { parentPort.postMessage({ kind: 'error', message: String(error && error.message) }); }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message.kind === 'close') {
    clearInterval(timer);
    db.close();
    parentPort.close();
    return;
  }
  try {
    const result = checkpoint('TRUNCATE', workerData.busyTimeoutMs);
    parentPort.postMessage({ kind: 'truncated', id: message.id, done: result.busy === 0 });
  } catch (error) {
    parentPort.postMessage({ kind: 'truncated', id: message.id, done: false, message: String(error && error.message) });
  }
});
`;

type ThreadMessage = { kind: 'error'; message: string } | { kind: 'truncated'; id: number; done: boolean; message?: string };

export class Checkpointer {
  private readonly worker: Worker;
  private readonly truncations = new Map<number, (done: boolean) => void>();
  private nextId = 1;
  private readonly exited: Promise<void>;

  constructor(options: CheckpointerOptions, onError: (message: string) => void, onExit: () => void) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(THREAD_SOURCE, {
      eval: true,
      workerData: {
        driver,
        file: options.file,
        intervalMs: options.intervalMs,
        restartFrames: options.restartFrames,
        busyTimeoutMs: CHECKPOINT_BUSY_TIMEOUT_MS,
      },
      // The thread must not keep a finished process alive.
      stdout: false,
    });
    this.worker.unref();
    this.worker.on('message', (message: ThreadMessage) => {
      if (message.kind === 'error') onError(message.message);
      else {
        if (message.message !== undefined) onError(message.message);
        this.truncations.get(message.id)?.(message.done);
        this.truncations.delete(message.id);
        if (this.truncations.size === 0) this.worker.unref();
      }
    });
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', () => {
        for (const settle of this.truncations.values()) settle(false);
        this.truncations.clear();
        onExit();
        resolve();
      }),
    );
    this.worker.on('error', (error) => onError(error.message));
  }

  /** Copies the whole log into the database and empties it; false when readers or a writer kept it from finishing. */
  truncate(): Promise<boolean> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.truncations.set(id, resolve);
      // Someone waits for the answer: the thread keeps the process alive until it comes.
      this.worker.ref();
      this.worker.postMessage({ kind: 'truncate', id });
    });
  }

  async close(): Promise<void> {
    this.worker.ref();
    this.worker.postMessage({ kind: 'close' });
    await this.exited;
  }
}
