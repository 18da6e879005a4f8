// Items of one kind written together (see Db.batched), in batches formed
// as batch-scheduler.ts says; a few batches run at once, so a batch is being
// filled while another waits for its commit.
import { BatchScheduler } from './batch-scheduler.ts';

interface Queued<I, R> {
  readonly item: I;
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

export class StatementBatcher<I, R> {
  private readonly scheduler: BatchScheduler<Queued<I, R>>;

  constructor(
    private readonly runAll: (items: readonly I[]) => Promise<readonly R[]>,
    /** How many batches may run at once. */
    concurrency: number,
  ) {
    this.scheduler = new BatchScheduler((batch) => this.runBatch(batch), concurrency);
  }

  submit(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.scheduler.push({ item, resolve, reject });
    });
  }

  get pending(): number {
    return this.scheduler.queued + this.scheduler.running;
  }

  private runBatch(batch: ReadonlyArray<Queued<I, R>>): Promise<void> {
    return this.runAll(batch.map((q) => q.item))
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
      });
  }
}
