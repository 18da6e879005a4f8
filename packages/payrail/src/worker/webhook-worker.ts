// The webhook delivery loop. It runs beside the job loop (worker.ts), never
// inside it, so a slow endpoint cannot hold up transfers or card jobs: each
// send runs on its own, at most DELIVERY_CONCURRENCY_MAX at once, each with
// its own deadline (10 s), and the loop claims new deliveries as slots free
// up, so one hung endpoint occupies one slot, never the others. Several
// processes may run it against one PostgreSQL store: claims are leased
// (flows/webhooks/deliver.ts), so no delivery is sent twice by them.
import type { Logger } from 'pino';
import { performance } from 'node:perf_hooks';
import { DELIVERY_TIMEOUT_MS } from '../domain/webhooks.ts';
import {
  claimDeliveries,
  type DeliveryDeps,
  type DeliveryRow,
  deliver,
  deliveryDepsOf,
  FAN_OUT_BATCH_MAX,
  fanOut,
  SENDS_PER_ENDPOINT_MAX,
  SLOW_ENDPOINT_POSTPONE_MS,
} from '../flows/webhooks/deliver.ts';
import type { Service } from '../service.ts';
import { BUSY_LINGER_MS } from './worker.ts';
import { WakeableSleep } from './wakeable-sleep.ts';

export const DELIVERY_CONCURRENCY_MAX = 32;
/** An endpoint at its send limit with a send under way longer than this is slow: it is paused meanwhile. */
const SLOW_SEND_MS = 1_000;
const IDLE_SLEEP_MS_MIN = 5;
const IDLE_SLEEP_MS_MAX = 250;
const ERROR_SLEEP_MS = 1000;

export class WebhookWorker {
  private stopping = false;
  private loop: Promise<void> | null = null;
  private readonly pause = new WakeableSleep();
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Sends under way per endpoint id, so one endpoint cannot take every slot. */
  private readonly perEndpoint = new Map<string, number>();
  /** When each endpoint's oldest send under way started (performance.now()), to tell a slow endpoint. */
  private readonly startedAt = new Map<string, number[]>();
  /** Slow endpoints paused: until when (performance.now()) and for how long the last time. */
  private readonly setAside = new Map<string, { untilMs: number; forMs: number }>();
  private readonly stopped = new AbortController();
  private readonly deps: DeliveryDeps;

  constructor(
    deps: DeliveryDeps,
    private readonly log: Logger,
    private readonly concurrency = DELIVERY_CONCURRENCY_MAX,
  ) {
    this.deps = { ...deps, signal: this.stopped.signal };
  }

  start(): void {
    if (this.loop !== null) return;
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    let sleepMs = IDLE_SLEEP_MS_MIN;
    while (!this.stopping) {
      try {
        const fanned = await fanOut(this.deps);
        const free = this.concurrency - this.inFlight.size;
        const claims = await claimDeliveries(this.deps, free, this.perEndpoint, { slow: this.slowEndpoints() });
        for (const claim of claims) this.start1(claim);
        // A full batch of either: more is waiting, go on at once. Some work: linger, as the job loop does
        // (worker.ts), so a steady stream of events is fanned out in batches, not a few at a time. None: back off.
        if (fanned >= FAN_OUT_BATCH_MAX || (free > 0 && claims.length >= free)) sleepMs = 0;
        else if (fanned + claims.length > 0) sleepMs = BUSY_LINGER_MS;
        else sleepMs = Math.min(IDLE_SLEEP_MS_MAX, Math.max(IDLE_SLEEP_MS_MIN, sleepMs * 2));
      } catch (error) {
        this.log.error({ err: error }, 'webhook delivery round failed; will retry');
        sleepMs = ERROR_SLEEP_MS;
      }
      // With every slot busy, wait for one to free up (or the idle sleep).
      const waitMs = this.inFlight.size >= this.concurrency ? IDLE_SLEEP_MS_MAX : sleepMs;
      await this.pause.sleep(this.stopping ? 0 : waitMs);
    }
  }

  /**
   * Endpoints at their send limit with a send under way for longer than
   * SLOW_SEND_MS that are due to be paused, with how long: the
   * first time SLOW_ENDPOINT_POSTPONE_MS, then twice the last time while the
   * endpoint stays slow, up to the send deadline. One that is no longer slow
   * starts again from the first.
   */
  private slowEndpoints(): Array<{ endpointId: string; postponeMs: number }> {
    const now = performance.now();
    const slow = new Set(
      [...this.perEndpoint]
        .filter(([id, count]) => count >= SENDS_PER_ENDPOINT_MAX && now - (this.startedAt.get(id)?.[0] ?? now) > SLOW_SEND_MS)
        .map(([id]) => id),
    );
    for (const id of this.setAside.keys()) if (!slow.has(id)) this.setAside.delete(id);
    const due: Array<{ endpointId: string; postponeMs: number }> = [];
    for (const endpointId of slow) {
      const last = this.setAside.get(endpointId);
      if (last !== undefined && now < last.untilMs) continue;
      const postponeMs = last === undefined ? SLOW_ENDPOINT_POSTPONE_MS : Math.min(last.forMs * 2, this.deps.timeoutMs ?? DELIVERY_TIMEOUT_MS);
      this.setAside.set(endpointId, { untilMs: now + postponeMs, forMs: postponeMs });
      due.push({ endpointId, postponeMs });
    }
    return due;
  }

  /** Sends one claimed delivery in the background, counted against its endpoint until it ends. */
  private start1(claim: DeliveryRow): void {
    const endpoint = claim.endpoint_id;
    this.perEndpoint.set(endpoint, (this.perEndpoint.get(endpoint) ?? 0) + 1);
    const started = performance.now();
    this.startedAt.set(endpoint, [...(this.startedAt.get(endpoint) ?? []), started]);
    const sending: Promise<unknown> = deliver(this.deps, claim)
      .catch((error: unknown) => this.log.error({ err: error, delivery: claim.pk }, 'webhook delivery failed; its claim will lapse and it will be retried'))
      .finally(() => {
        const left = (this.perEndpoint.get(endpoint) ?? 1) - 1;
        if (left <= 0) this.perEndpoint.delete(endpoint);
        else this.perEndpoint.set(endpoint, left);
        const times = (this.startedAt.get(endpoint) ?? []).filter((t) => t !== started);
        if (times.length === 0) this.startedAt.delete(endpoint);
        else this.startedAt.set(endpoint, times);
        this.inFlight.delete(sending);
        this.pause.wakeUp();
      });
    this.inFlight.add(sending);
  }

  /** Stops claiming and ends sends under way at once; their claims lapse, so another worker (or the next start) sends them again. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.stopped.abort();
    this.pause.wakeUp();
    await this.loop;
    this.loop = null;
    await Promise.allSettled([...this.inFlight]);
  }
}

export function createWebhookWorker(service: Service): WebhookWorker {
  const deps = deliveryDepsOf(service);
  return new WebhookWorker(deps, deps.log);
}
