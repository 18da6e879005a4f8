// Bounding a connector call. Payrail hands every connector call an
// AbortSignal that fires after a timeout, but a connector that ignores it
// (or hangs before it looks) must still not hold up the caller: the worker
// runs a bounded number of calls at once, so one hung call would stall every
// transfer (or charge) behind it.
import { setMaxListeners } from 'node:events';

/**
 * Settles as `work` does, or rejects with the signal's reason as soon as the
 * signal fires, whichever comes first. A late settlement of `work` is then
 * ignored; the caller treats the outcome as unknown.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Runs `call` with a signal that fires after `timeoutMs`, and stops waiting
 * for it then (untilAborted). A call that throws at once rejects the same
 * way. The deadline's timer keeps the process alive until the call ends
 * (AbortSignal.timeout's would not), so a hung call always ends at its
 * deadline, even when nothing else is pending.
 */
export function withDeadline<T>(timeoutMs: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
  let work: Promise<T>;
  try {
    work = call(controller.signal);
  } catch (error) {
    clearTimeout(timer);
    return Promise.reject(error);
  }
  return untilAborted(work, controller.signal).finally(() => clearTimeout(timer));
}

/**
 * Deadlines for calls made often and each awaited by someone, such as a
 * request's provider look-ups: every call started within
 * SHARED_DEADLINE_REUSE_MS of a window's first shares its signal and its
 * timer, instead of a controller, signal and timer per call (they cost a
 * tenth of a transfer execute's CPU). Each call still gets at least
 * `timeoutMs`. The window's timer keeps the process alive while one of its
 * calls is in flight, as withDeadline's does (a hung call must end at its
 * deadline even when nothing else is pending), and is cleared when its last
 * call ends, so an idle process holds no timer.
 */
export class SharedCallDeadline {
  private window: { readonly controller: AbortController; readonly timer: NodeJS.Timeout; readonly madeAtMs: number; inFlight: number } | null = null;

  constructor(private readonly timeoutMs: number) {}

  /** Runs `call` with the window's signal; settles as it does, or rejects when the signal fires (untilAborted). */
  run<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const window = this.currentWindow();
    window.inFlight += 1;
    const done = () => {
      window.inFlight -= 1;
      if (window.inFlight > 0) return;
      clearTimeout(window.timer);
      if (this.window === window) this.window = null;
    };
    let work: Promise<T>;
    try {
      work = call(window.controller.signal);
    } catch (error) {
      done();
      return Promise.reject(error);
    }
    return untilAborted(work, window.controller.signal).finally(done);
  }

  private currentWindow() {
    const nowMs = performance.now();
    const current = this.window;
    if (current !== null && nowMs - current.madeAtMs < SHARED_DEADLINE_REUSE_MS && !current.controller.signal.aborted) return current;
    const controller = new AbortController();
    // Every call of the window listens on its signal (untilAborted, the connector, its breaker): many listeners are expected.
    setMaxListeners(0, controller.signal);
    const waitMs = this.timeoutMs + SHARED_DEADLINE_REUSE_MS;
    const timer = setTimeout(() => controller.abort(new DOMException(`no answer within ${waitMs} ms`, 'TimeoutError')), waitMs);
    this.window = { controller, timer, madeAtMs: nowMs, inFlight: 0 };
    return this.window;
  }
}

/** How long one shared deadline signal is handed out before a new one is made. */
const SHARED_DEADLINE_REUSE_MS = 100;

/**
 * Deadline signals for a batch of calls: one signal (and one timer) serves
 * every call that starts within SHARED_DEADLINE_REUSE_MS of it, instead of a
 * timer per call. It fires `timeoutMs` plus that window after it was made,
 * so every call still gets at least `timeoutMs`, and at most the window more.
 */
export class SharedDeadline {
  private current: AbortSignal | null = null;
  private madeAtMs = 0;

  constructor(
    private readonly timeoutMs: number,
    /** Calls in flight at once: each may listen on the signal (untilAborted, the connector's breaker, and the connector itself). */
    private readonly callsAtOnce: number,
  ) {}

  signal(): AbortSignal {
    const nowMs = performance.now();
    if (this.current === null || nowMs - this.madeAtMs >= SHARED_DEADLINE_REUSE_MS) {
      this.current = AbortSignal.timeout(this.timeoutMs + SHARED_DEADLINE_REUSE_MS);
      // Many listeners on one signal are expected here, not a leak.
      setMaxListeners(this.callsAtOnce * 3, this.current);
      this.madeAtMs = nowMs;
    }
    return this.current;
  }
}

/**
 * How long Payrail waits for a look-up a request is waiting on (is the
 * receiver on the network, their KYC, an FX rate) before it answers
 * service_unavailable. Short, because a client waits: a look-up that has
 * not answered by then is not worth holding the request for.
 */
export const LOOKUP_TIMEOUT_MS = 10_000;

/** A connector whose look-ups answer faster may say so: Payrail then waits that long, never longer than LOOKUP_TIMEOUT_MS. */
export interface LookupDeadline {
  readonly lookupTimeoutMs?: number;
}

/** The deadline of one look-up of `connector`: LOOKUP_TIMEOUT_MS, or the connector's shorter one. */
export function lookupTimeoutMs(connector: LookupDeadline): number {
  const asked = connector.lookupTimeoutMs;
  return asked !== undefined && Number.isFinite(asked) && asked > 0 ? Math.min(asked, LOOKUP_TIMEOUT_MS) : LOOKUP_TIMEOUT_MS;
}
