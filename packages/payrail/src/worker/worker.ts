// The worker loop. It runs a fixed list of jobs (drive transfers, resolve
// pending charges, expire invitations, ...). Each job does one bounded batch
// per call and says how much it did; the loop runs again at once while there
// is work and backs off up to IDLE_SLEEP_MS_MAX when there is none.
import type { Logger } from 'pino';

export interface Job {
  readonly name: string;
  /** Processes at most one bounded batch; returns the number of items handled. */
  runOnce(): Promise<number>;
}

const IDLE_SLEEP_MS_MIN = 5;
const IDLE_SLEEP_MS_MAX = 200;
const ERROR_SLEEP_MS = 1000;

export class Worker {
  private stopping = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;

  constructor(
    private readonly jobs: readonly Job[],
    private readonly log: Logger,
  ) {}

  start(): void {
    if (this.loop !== null) return;
    this.loop = this.run();
  }

  /** Runs every job until none has work left (bounded); used by tests and the CLI. */
  async drain(roundsMax = 1000): Promise<number> {
    let total = 0;
    for (let round = 0; round < roundsMax; round++) {
      let done = 0;
      for (const job of this.jobs) done += await job.runOnce();
      total += done;
      if (done === 0) return total;
    }
    return total;
  }

  /** Asks the loop to look for work now instead of after its idle sleep. */
  poke(): void {
    this.wake?.();
  }

  private async run(): Promise<void> {
    let sleepMs = IDLE_SLEEP_MS_MIN;
    while (!this.stopping) {
      let done = 0;
      try {
        for (const job of this.jobs) {
          if (this.stopping) break;
          done += await job.runOnce();
        }
        sleepMs = done > 0 ? 0 : Math.min(IDLE_SLEEP_MS_MAX, Math.max(IDLE_SLEEP_MS_MIN, sleepMs * 2));
      } catch (error) {
        this.log.error({ err: error }, 'worker batch failed; will retry');
        sleepMs = ERROR_SLEEP_MS;
      }
      if (sleepMs > 0 && !this.stopping) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, sleepMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      } else {
        // Yield so HTTP requests are served between batches.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    this.loop = null;
  }
}
