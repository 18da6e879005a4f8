// Wakes the threads of one process that write the same SQLite file as soon
// as one of them ends a write transaction. SQLite has one writer at a time:
// a thread whose BEGIN IMMEDIATE finds the file locked tries again later.
// Between processes "later" is a timer (1 ms doubling to 25 ms, see
// sqlite.ts begin()); between the threads of one process (the HTTP server
// and its worker thread) this counter in shared memory says exactly when:
// every COMMIT or ROLLBACK adds one and notifies, and a thread waiting to
// begin sleeps on it with the same timer as its bound. Nothing depends on
// it for correctness: SQLite's own lock decides who writes; a wake-up that
// comes late or never only costs the timer's wait, as without it. Readers
// look at it too: a read transaction kept open for the rest of a turn of the
// event loop is ended once the counter moved, so a thread reads another's
// commit as soon as it is made (sqlite.ts ReadTx).

/** Atomics.waitAsync (ES2024; Node >= 16), which the ES2022 library types do not declare. */
type WaitAsync = (
  typedArray: Int32Array,
  index: number,
  value: number,
  timeoutMs: number,
) => { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

/** The shared memory a signal lives in: one 32-bit counter. */
export function newCommitSignalBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
}

export class CommitSignal {
  private readonly counter: Int32Array;

  constructor(buffer: SharedArrayBuffer) {
    this.counter = new Int32Array(buffer, 0, 1);
  }

  /** Read before trying to begin: a transaction that ends after this read wakes the wait that follows. */
  generation(): number {
    return Atomics.load(this.counter, 0);
  }

  /** Called after every COMMIT or ROLLBACK of a write transaction: the write lock is free. */
  ended(): void {
    Atomics.add(this.counter, 0, 1);
    Atomics.notify(this.counter, 0);
  }

  /** Resolves once a write transaction ended after `generation` was read, or after `timeoutMs` at most. */
  async endedSince(generation: number, timeoutMs: number): Promise<void> {
    const wait = waitAsync(this.counter, 0, generation, timeoutMs);
    if (!wait.async) return;
    // A pending Atomics.waitAsync does not keep Node's event loop alive: a
    // thread with nothing else to do (the worker thread opening its store
    // while the server writes) would end mid-wait (exit code 13, an
    // unsettled top-level await). A timer as long as the wait keeps it alive.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([wait.value, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
  }
}
