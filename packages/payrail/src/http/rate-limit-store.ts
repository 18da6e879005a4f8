// A store for @fastify/rate-limit whose counts are shared by every process on
// the same Payrail store (docs/api-decisions.md section 13), so N server
// processes on PostgreSQL enforce one limit, not N.
//
// Writing every request's hit would turn each read of the API into a write.
// Instead each process counts locally and adds its hits to the shared count
// (one upsert, flows/access/abuse-counters.ts) once it holds a twentieth of the
// limit or a second has passed, taking back every process's total. The
// answer is then at most that far behind the other processes; a count that
// is already over the limit locally is over it everywhere. With a limit of
// 20 or less every hit is shared at once, exactly.
//
// Windows are fixed and aligned (a per-minute limit counts from each minute
// of the service clock), so every process agrees on which window a hit is in.
import { countRequests } from '../flows/access/abuse-counters.ts';
import type { Service } from '../service.ts';

/** A process shares its hits at least this often... */
const SYNC_INTERVAL_MS = 1000;
/** ...and whenever it holds this share of the limit unshared. */
const SYNC_SHARE_OF_LIMIT = 1 / 20;
/** Buckets remembered per process; beyond it, those of past windows (then the oldest) are forgotten. */
const BUCKETS_MAX = 10_000;

interface Bucket {
  readonly windowStartMs: number;
  /** The shared total as last read, this process's shared hits included. */
  shared: number;
  /** This process's hits not yet added to the shared total. */
  unshared: number;
  sharedAtMs: number;
  syncing: boolean;
}

/** A key's count in its window, and the ms left in the window. */
export interface HitCount {
  readonly current: number;
  readonly ttl: number;
}

type Callback = (error: Error | null, result?: HitCount) => void;

export type SharedCounterDeps = Pick<Service, 'db' | 'clock' | 'log'>;

/** The counts of one process, shared through the store. One per application. */
export class SharedCounter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly deps: SharedCounterDeps) {}

  /**
   * Counts a hit of `key`: the window's total so far (as best known) and the
   * ms left in the window. At once when nothing is due to be shared (nearly
   * every hit), so a request pays no promise for it; a promise when this hit
   * shares the count first.
   */
  hit(key: string, windowMs: number, max: number): HitCount | Promise<HitCount> {
    const nowMs = this.deps.clock.nowMs();
    const windowStartMs = Math.floor(nowMs / windowMs) * windowMs;
    let bucket = this.buckets.get(key);
    if (bucket === undefined || bucket.windowStartMs !== windowStartMs) {
      bucket = { windowStartMs, shared: 0, unshared: 0, sharedAtMs: Number.NEGATIVE_INFINITY, syncing: false };
      this.remember(key, bucket, windowStartMs);
    }
    bucket.unshared += 1;
    const ttl = windowStartMs + windowMs - nowMs;
    const due = bucket.unshared >= Math.max(1, Math.floor(max * SYNC_SHARE_OF_LIMIT)) || nowMs - bucket.sharedAtMs >= SYNC_INTERVAL_MS;
    if (due && !bucket.syncing && bucket.shared + bucket.unshared <= max) {
      const shared = bucket;
      return this.share(key, shared, nowMs).then(() => ({ current: shared.shared + shared.unshared, ttl }));
    }
    return { current: bucket.shared + bucket.unshared, ttl };
  }

  private async share(key: string, bucket: Bucket, nowMs: number): Promise<void> {
    const hits = bucket.unshared;
    bucket.unshared = 0;
    bucket.syncing = true;
    try {
      const total = await countRequests(this.deps, key, bucket.windowStartMs, hits);
      bucket.shared = Math.max(bucket.shared + hits, total);
      bucket.sharedAtMs = nowMs;
    } catch (error) {
      // Counted locally still; shared at the next chance.
      bucket.unshared += hits;
      this.deps.log.error({ err: error }, 'could not share rate-limit counts; counting locally meanwhile');
    } finally {
      bucket.syncing = false;
    }
  }

  private remember(key: string, bucket: Bucket, windowStartMs: number): void {
    this.buckets.delete(key);
    if (this.buckets.size >= BUCKETS_MAX) {
      for (const [other, old] of this.buckets) if (old.windowStartMs < windowStartMs) this.buckets.delete(other);
      while (this.buckets.size >= BUCKETS_MAX) this.buckets.delete(this.buckets.keys().next().value!);
    }
    this.buckets.set(key, bucket);
  }
}

/**
 * The store class @fastify/rate-limit constructs (`new Store(options)`),
 * bound to one SharedCounter. Every child (one per limiter) shares it; the
 * limiters' keys carry their own prefixes.
 */
export function sharedStoreClass(counter: SharedCounter) {
  return class SharedRateLimitStore {
    incr(key: string, callback: Callback, timeWindow: number, max: number): void {
      const counted = counter.hit(key, timeWindow, max);
      if (!(counted instanceof Promise)) {
        callback(null, counted);
        return;
      }
      counted.then(
        (result) => callback(null, result),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    }

    child(): SharedRateLimitStore {
      return this;
    }
  };
}
