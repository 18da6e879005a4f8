// The worker loop. It runs a fixed list of jobs (drive transfers, resolve
// pending charges, expire invitations, ...). Each job does one bounded batch
// per call and says how much it did. A job that found a full batch runs
// again in the next round, at once; one that found work but less than a
// full batch lingers BUSY_LINGER_MS first, so that under a steady load its
// batches fill up instead of being taken a few rows at a time: on SQLite
// every commit of the worker's connection empties the page cache of the
// API's connections in this process (SQLite drops a connection's cache when
// another connection changed the file), and on PostgreSQL each batch costs
// round trips. Measured during an execute load on SQLite: ~160 worker
// commits a second without it, ~55 with it, and 10-30% less CPU per execute.
// A job that found none backs off on its own, from IDLE_SLEEP_MS_MIN
// doubling up to IDLE_SLEEP_MS_MAX, while the busy ones keep running. So
// under load the rounds are the busy jobs' batches, not a look at every
// table: the recovery and expiry jobs each cost a statement and a durable
// write op even when they find nothing. An idle job is looked at again
// within IDLE_SLEEP_MS_MAX, as when the whole worker is idle, so nothing
// waits longer than it did before.
//
// Each job is run on its own: a job that throws is logged by name and backs
// off (ERROR_BACKOFF_MS_MIN doubling up to ERROR_BACKOFF_MS_MAX) while the
// other jobs in the round go on. One job failing on every call (a value it
// cannot read, a table it cannot reach) must never stop mail, pruning or
// reconciliation, nor spin on its own error.
import type { Logger } from 'pino';
import { WakeableSleep } from './wakeable-sleep.ts';

export interface Job {
  readonly name: string;
  /**
   * The most items one call handles, when the job has such a bound: a call
   * that handles fewer (but some) is followed by the next only after
   * BUSY_LINGER_MS. Without it, a call that found work is followed at once.
   */
  readonly batchMax?: number;
  /** Processes at most one bounded batch; returns the number of items handled. */
  runOnce(): Promise<number>;
  /**
   * Ends what the job started in the background and still runs (the daily
   * reconciliation): called by Worker.stop after the loop ended, before the
   * store closes.
   */
  stop?(): Promise<void>;
}

/** How long a job that found a partial batch waits before its next call (see the top of this file). */
export const BUSY_LINGER_MS = 20;
const IDLE_SLEEP_MS_MIN = 5;
const IDLE_SLEEP_MS_MAX = 200;
const ERROR_SLEEP_MS = 1000;
/** The first wait after a job threw; it doubles with each throw in a row up to ERROR_BACKOFF_MS_MAX. */
export const ERROR_BACKOFF_MS_MIN = 1000;
export const ERROR_BACKOFF_MS_MAX = 60_000;

/** A job's place in the loop: when it may run next (loop time, ms) and its current idle back-off. */
interface Slot {
  readonly job: Job;
  dueAtMs: number;
  backoffMs: number;
  /** Throws in a row (0 once a call returns). */
  failures: number;
}

/** The next back-off after a round in which the job found nothing. */
export function nextIdleBackoffMs(backoffMs: number): number {
  return Math.min(IDLE_SLEEP_MS_MAX, Math.max(IDLE_SLEEP_MS_MIN, backoffMs * 2));
}

/** The wait after the job's `failures`-th throw in a row. */
export function errorBackoffMs(failures: number): number {
  return Math.min(ERROR_BACKOFF_MS_MAX, ERROR_BACKOFF_MS_MIN * 2 ** Math.min(16, Math.max(0, failures - 1)));
}

/** What is logged of a job's error: its class, code and message (jobs' errors name ids, never data), not the objects it carries. */
function errorSummary(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error };
  const code = (error as { code?: unknown }).code;
  return { type: error.name, message: error.message.slice(0, 500), ...(typeof code === 'string' ? { code } : {}), stack: error.stack?.slice(0, 2000) };
}

export class Worker {
  private stopping = false;
  private loop: Promise<void> | null = null;
  private readonly pause = new WakeableSleep();
  private readonly slots: Slot[];

  constructor(
    private readonly jobs: readonly Job[],
    private readonly log: Logger,
    /** The loop's clock (monotonic ms); a test may drive it. */
    private readonly nowMs: () => number = () => performance.now(),
  ) {
    this.slots = jobs.map((job) => ({ job, dueAtMs: 0, backoffMs: 0, failures: 0 }));
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

  /** Asks the loop to look for work in every job now instead of after their idle back-off (a failing job keeps its back-off). */
  poke(): void {
    for (const slot of this.slots) if (slot.failures === 0) slot.dueAtMs = 0;
    this.pause.wakeUp();
  }

  /**
   * One round: each job that is due runs once. Returns how long the loop may
   * sleep before the next round: 0 when a job found a full batch (or work,
   * without a bound), else until the earliest job is due again.
   */
  async round(): Promise<number> {
    let again = false;
    for (const slot of this.slots) {
      if (this.stopping) break;
      if (this.nowMs() < slot.dueAtMs) continue;
      let done: number;
      try {
        done = await slot.job.runOnce();
      } catch (error) {
        slot.failures += 1;
        slot.backoffMs = 0;
        const waitMs = errorBackoffMs(slot.failures);
        slot.dueAtMs = this.nowMs() + waitMs;
        this.log.error({ job: slot.job.name, failures: slot.failures, retryInMs: waitMs, err: errorSummary(error) }, 'worker job failed; will retry');
        continue;
      }
      slot.failures = 0;
      if (done > 0) {
        slot.backoffMs = 0;
        const partial = slot.job.batchMax !== undefined && done < slot.job.batchMax;
        slot.dueAtMs = partial ? this.nowMs() + BUSY_LINGER_MS : 0;
        if (!partial) again = true;
      } else {
        slot.backoffMs = nextIdleBackoffMs(slot.backoffMs);
        slot.dueAtMs = this.nowMs() + slot.backoffMs;
      }
    }
    if (again) return 0;
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
      await this.pause.sleep(this.stopping ? 0 : sleepMs);
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.pause.wakeUp();
    await this.loop;
    this.loop = null;
    await Promise.all(this.jobs.map((job) => job.stop?.()));
  }
}
