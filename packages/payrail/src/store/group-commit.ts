// Group commit: operations queued within one turn of the event loop (plus
// whatever arrives while a commit is being made durable) share one
// transaction. An operation that fails (an expected ApiError or anything
// else) is rolled back alone and gets its own error; the others still commit
// (how, each runner's run() says). Callers hear back after COMMIT.
import { GROUP_COMMIT_OPS_MAX, type Tx } from './db.ts';

interface PendingOp {
  work: (tx: Tx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export interface BatchRunner {
  /** Runs one batch of operations in one transaction; returns each op's outcome in order. */
  run(ops: ReadonlyArray<(tx: Tx) => Promise<unknown>>): Promise<Array<{ ok: true; value: unknown } | { ok: false; error: unknown }>>;
  /**
   * Resolves once every batch committed so far is on disk. A runner whose
   * COMMIT is durable by itself leaves it out; one that makes commits
   * durable off the main thread (SQLite) provides it, and the next batch
   * runs meanwhile, so one disk flush covers several batches.
   */
  durable?(): Promise<void>;
}

export class GroupCommitter {
  private readonly queue: PendingOp[] = [];
  private running = 0;
  /** Batches committed but not yet on disk (their callers are still waiting). */
  private flushing = 0;
  private scheduled = false;

  constructor(
    private readonly runner: BatchRunner,
    /** How many batches may commit at once (1 for SQLite's single writer). */
    private readonly concurrency: number,
  ) {}

  submit<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running >= this.concurrency || this.queue.length === 0) return;
    this.scheduled = true;
    // setImmediate lets every request already parsed in this turn join the batch.
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.running < this.concurrency && this.queue.length > 0) {
      const batch = this.queue.splice(0, GROUP_COMMIT_OPS_MAX);
      this.running += 1;
      this.runner
        .run(batch.map((op) => op.work))
        .finally(() => {
          // The transaction is over: the next batch may run while this one is made durable.
          this.running -= 1;
          this.flushing += 1;
          this.schedule();
        })
        .then(
          async (outcomes) => {
            // Nobody hears back before the batch is on disk, failed operations included:
            // their refusal may depend on a write of this batch that must not be lost.
            await this.runner.durable?.();
            outcomes.forEach((outcome, i) => {
              const op = batch[i]!;
              if (outcome.ok) op.resolve(outcome.value);
              else op.reject(outcome.error);
            });
          },
          (error: unknown) => {
            for (const op of batch) op.reject(error);
          },
        )
        .catch((error: unknown) => {
          // The disk flush failed: the batch's fate is unknown, so every operation fails.
          for (const op of batch) op.reject(error);
        })
        .finally(() => {
          this.flushing -= 1;
        });
    }
  }

  get pending(): number {
    return this.queue.length + this.running + this.flushing;
  }
}
