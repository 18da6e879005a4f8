// The worker loop. It runs a fixed list of jobs (drive transfers, resolve
// pending charges, expire invitations, ...). Each job does one bounded batch
// per call and says how much it did. A job that found work runs again in the
// next round, at once; a job that found none backs off on its own, from
// IDLE_SLEEP_MS_MIN doubling up to IDLE_SLEEP_MS_MAX, while the busy ones
// keep running. So under load the rounds are the busy jobs' batches, not a
// look at every table: the recovery and expiry jobs each cost a statement and
// a durable write op even when they find nothing (measured at ~1 ms of the
// process per round during an execute load, about 26 rounds a second).
// An idle job is looked at again within IDLE_SLEEP_MS_MAX, as when the whole
// worker is idle, so nothing waits longer than it did before.
import type { Logger } from 'pino';

export interface Job {
  readonly name: string;
  /** Processes at most one bounded batch; returns the number of items handled. */
  runOnce(): Promise<number>;
}

const IDLE_SLEEP_MS_MIN = 5;
const IDLE_SLEEP_MS_MAX = 200;
const ERROR_SLEEP_MS = 1000;

/** A job's place in the loop: when it may run next (loop time, ms) and its current idle back-off. */
interface Slot {
  readonly job: Job;
  dueAtMs: number;
  backoffMs: number;
}

/** The next back-off after a round in which the job found nothing. */
export function nextIdleBackoffMs(backoffMs: number): number {
  return Math.min(IDLE_SLEEP_MS_MAX, Math.max(IDLE_SLEEP_MS_MIN, backoffMs * 2));
}

export class Worker {
  private stopping = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private readonly slots: Slot[];

  constructor(
    private readonly jobs: readonly Job[],
    private readonly log: Logger,
    /** The loop's clock (monotonic ms); a test may drive it. */
    private readonly nowMs: () => number = () => performance.now(),
  ) {
    this.slots = jobs.map((job) => ({ job, dueAtMs: 0, backoffMs: 0 }));
  }

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

  /** Asks the loop to look for work in every job now instead of after their idle back-off. */
  poke(): void {
    for (const slot of this.slots) slot.dueAtMs = 0;
    this.wake?.();
  }

  /**
   * One round: each job that is due runs once. Returns how long the loop may
   * sleep before the next round: 0 when a job found work, else until the
   * earliest idle job is due again.
   */
  async round(): Promise<number> {
    let busy = false;
    for (const slot of this.slots) {
      if (this.stopping) break;
      if (this.nowMs() < slot.dueAtMs) continue;
      const done = await slot.job.runOnce();
      if (done > 0) {
        busy = true;
        slot.backoffMs = 0;
        slot.dueAtMs = 0;
      } else {
        slot.backoffMs = nextIdleBackoffMs(slot.backoffMs);
        slot.dueAtMs = this.nowMs() + slot.backoffMs;
      }
    }
    if (busy) return 0;
    const nowMs = this.nowMs();
    const earliestMs = Math.min(...this.slots.map((slot) => slot.dueAtMs));
    return Math.min(IDLE_SLEEP_MS_MAX, Math.max(IDLE_SLEEP_MS_MIN, Math.ceil(earliestMs - nowMs)));
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      let sleepMs: number;
      try {
        sleepMs = await this.round();
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
