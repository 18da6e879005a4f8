// Items of one kind written together (see Db.batched). Items given within
// one turn of the event loop, plus those arriving while the batches before
// them run, form one batch of at most GROUP_COMMIT_OPS_MAX items; a few
// batches run at once, so a batch is being filled while another waits for
// its commit.
import { GROUP_COMMIT_OPS_MAX } from './db.ts';

interface Queued<I, R> {
  readonly item: I;
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

export class StatementBatcher<I, R> {
  private readonly queue: Array<Queued<I, R>> = [];
  private running = 0;
  private scheduled = false;

  constructor(
    private readonly runAll: (items: readonly I[]) => Promise<readonly R[]>,
    /** How many batches may run at once. */
    private readonly concurrency: number,
  ) {}

  submit(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  get pending(): number {
    return this.queue.length + this.running;
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
      this.runAll(batch.map((q) => q.item))
        .then(
          (results) => {
            if (results.length !== batch.length) throw new Error(`batched statement: ${results.length} results for ${batch.length} items`);
            batch.forEach((q, n) => {
              q.resolve(results[n]!);
            });
          },
          (error: unknown) => {
            for (const q of batch) q.reject(error);
          },
        )
        .catch((error: unknown) => {
          for (const q of batch) q.reject(error);
        })
        .finally(() => {
          this.running -= 1;
          this.schedule();
        });
    }
  }
}
