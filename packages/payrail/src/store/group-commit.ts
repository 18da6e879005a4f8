// Group commit: operations queued within one turn of the event loop (plus
// whatever arrives while a commit is being made durable) share one
// transaction. An operation that fails (an expected ApiError or anything
// else) is rolled back alone and gets its own error; the others still commit
// (how, each runner's run() says). Callers hear back after COMMIT. Batches
// are formed as batch-scheduler.ts says.
import { BatchScheduler } from './batch-scheduler.ts';
import type { Tx } from './db.ts';

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
  private readonly scheduler: BatchScheduler<PendingOp>;
  /** Batches committed but not yet on disk (their callers are still waiting). */
  private flushing = 0;

  constructor(
    private readonly runner: BatchRunner,
    /** How many batches may commit at once (1 for SQLite's single writer). */
    concurrency: number,
  ) {
    this.scheduler = new BatchScheduler((batch) => this.runBatch(batch), concurrency);
  }

  submit<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.scheduler.push({ work, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  /** Settles when the transaction is over: the next batch may run while this one is made durable. */
  private runBatch(batch: readonly PendingOp[]): Promise<void> {
    const ran = this.runner.run(batch.map((op) => op.work));
    ran
      .then(
        async (outcomes) => {
          this.flushing += 1;
          try {
            // Nobody hears back before the batch is on disk, failed operations included:
            // their refusal may depend on a write of this batch that must not be lost.
            await this.runner.durable?.();
          } catch (error) {
            // The disk flush failed: the batch's fate is unknown, so every operation fails.
            for (const op of batch) op.reject(error);
            return;
          } finally {
            this.flushing -= 1;
          }
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
        for (const op of batch) op.reject(error);
      });
    return ran.then(
      () => undefined,
      () => undefined,
    );
  }

  get pending(): number {
    return this.scheduler.queued + this.scheduler.running + this.flushing;
  }
}
