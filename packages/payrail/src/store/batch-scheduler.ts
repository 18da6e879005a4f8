// When queued entries run, and how many at a time: the scheduling shared by
// the group commit (group-commit.ts) and the batched statements
// (statement-batcher.ts). Entries queued within one turn of the event loop,
// plus those arriving while the batches before them run, form one batch of
// at most GROUP_COMMIT_OPS_MAX; at most `concurrency` batches run at once,
// so a batch is being filled while another waits for its commit.
import { GROUP_COMMIT_OPS_MAX } from './db.ts';

export class BatchScheduler<E> {
  private readonly queue: E[] = [];
  private runningCount = 0;
  private scheduled = false;

  constructor(
    /** Runs one batch; settles when the batch no longer takes one of the `concurrency` places (it must not reject). */
    private readonly runBatch: (batch: E[]) => Promise<void>,
    /** How many batches may run at once. */
    private readonly concurrency: number,
  ) {}

  push(entry: E): void {
    this.queue.push(entry);
    this.schedule();
  }

  /** Entries queued and not yet in a batch. */
  get queued(): number {
    return this.queue.length;
  }

  /** Batches running. */
  get running(): number {
    return this.runningCount;
  }

  private schedule(): void {
    if (this.scheduled || this.runningCount >= this.concurrency || this.queue.length === 0) return;
    this.scheduled = true;
    // setImmediate lets every request already parsed in this turn join the batch.
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.runningCount < this.concurrency && this.queue.length > 0) {
      const batch = this.queue.splice(0, GROUP_COMMIT_OPS_MAX);
      this.runningCount += 1;
      void this.runBatch(batch).finally(() => {
        this.runningCount -= 1;
        this.schedule();
      });
    }
  }
}
