// A circuit breaker per connector (behaviour.md section 18), on cockatiel's
// consecutive-failure breaker. A provider that is down costs every caller
// its whole deadline; after BREAKER_DEFAULTS.consecutiveFailuresMax calls in
// a row fail (a thrown error or no answer by the caller's deadline), the
// breaker opens and refuses further calls before anything is sent, until
// halfOpenAfterMs has passed; the next call is then sent as a trial (calls
// arriving meanwhile wait for it), and its answer closes the breaker again,
// its failure opens it for another interval.
//
// What counts: any answer is a success, a decline or a rejection included
// (the provider is up and said no). A refusal is thrown as BreakerOpen, an
// error: every flow treats a thrown error as "outcome unknown" (nothing was
// sent, which the connector contracts allow for an unknown outcome: the same
// reference is asked again later), so the breaker never turns an unknown
// outcome into a failure. On the request path a refusal is a 503
// service_unavailable with nothing written.
import { BrokenCircuitError, CircuitState, ConsecutiveBreaker, circuitBreaker, handleAll, type CircuitBreakerPolicy } from 'cockatiel';
import { untilAborted } from './deadline.ts';

export interface BreakerSettings {
  /** Failed calls in a row that open the breaker. */
  readonly consecutiveFailuresMax: number;
  /** How long an open breaker refuses before it lets one trial call through. */
  readonly halfOpenAfterMs: number;
}

/**
 * Five failures in a row is past a blip (one dropped connection, one slow
 * answer) and still well before a queue of callers has each waited a whole
 * deadline; thirty seconds is the deadline of one card processor call, so a
 * trial is sent about as often as a caller would have waited anyway.
 */
export const BREAKER_DEFAULTS: BreakerSettings = { consecutiveFailuresMax: 5, halfOpenAfterMs: 30_000 };

/** Bounds of what a connector may ask for (BreakerTuning). */
const FAILURES_MAX_LIMIT = 1_000;
const HALF_OPEN_AFTER_MS_LIMIT = 10 * 60_000;

/**
 * A connector may tune its breaker (a provider known to recover faster, or a
 * test double), as it may shorten its deadline. Values out of bounds are ignored.
 */
export interface BreakerTuning {
  readonly breaker?: Partial<BreakerSettings>;
}

/**
 * The longest a call without a signal of its own is waited for inside the
 * breaker: the trial call of a half-open breaker holds every other call
 * back, so it must end even if the connector never answers.
 */
export const BREAKER_CALL_CEILING_MS = 30_000;

/** A call the breaker refused: nothing was sent to the provider. An error, so callers treat it as an unknown outcome. */
export class BreakerOpen extends Error {
  override readonly name = 'BreakerOpen';
  constructor(readonly connector: string) {
    super(`the circuit breaker of connector ${connector} is open: the call was not sent`);
  }
}

export function isBreakerOpen(error: unknown): error is BreakerOpen {
  return error instanceof BreakerOpen;
}

export type BreakerState = 'closed' | 'open' | 'half-open';

const STATE_NAMES: Readonly<Record<CircuitState, BreakerState>> = {
  [CircuitState.Closed]: 'closed',
  [CircuitState.Open]: 'open',
  [CircuitState.HalfOpen]: 'half-open',
  // Payrail never isolates a breaker by hand; were one isolated, it refuses like an open one.
  [CircuitState.Isolated]: 'open',
};

/** The settings a connector's tuning makes, each value within its bounds. */
export function breakerSettingsOf(tuning: BreakerTuning | undefined): BreakerSettings {
  const asked = tuning?.breaker ?? {};
  const within = (value: number | undefined, limit: number, fallback: number) =>
    value !== undefined && Number.isSafeInteger(value) && value >= 1 && value <= limit ? value : fallback;
  return {
    consecutiveFailuresMax: within(asked.consecutiveFailuresMax, FAILURES_MAX_LIMIT, BREAKER_DEFAULTS.consecutiveFailuresMax),
    halfOpenAfterMs: within(asked.halfOpenAfterMs, HALF_OPEN_AFTER_MS_LIMIT, BREAKER_DEFAULTS.halfOpenAfterMs),
  };
}

export class ConnectorBreaker {
  private readonly policy: CircuitBreakerPolicy;
  /** When the breaker last opened (Date.now(), as cockatiel times it), or null while it has not. */
  private openedAtMs: number | null = null;

  constructor(
    /** The connector's slot and name, for errors and logs. */
    readonly connector: string,
    readonly settings: BreakerSettings,
  ) {
    this.policy = circuitBreaker(handleAll, {
      halfOpenAfter: settings.halfOpenAfterMs,
      breaker: new ConsecutiveBreaker(settings.consecutiveFailuresMax),
    });
    this.policy.onBreak(() => {
      this.openedAtMs = Date.now();
    });
  }

  /** The breaker's state, for metrics and logs: read only. */
  state(): BreakerState {
    return STATE_NAMES[this.policy.state];
  }

  /**
   * Whether a call made now would be refused, or held back behind a trial
   * in flight: a request that must not write anything before it knows the
   * provider is reachable asks this first. An open breaker whose interval
   * has passed lets the next call through as its trial, so it says false.
   */
  refusesNow(): boolean {
    const state = this.policy.state;
    if (state === CircuitState.HalfOpen || state === CircuitState.Isolated) return true;
    if (state !== CircuitState.Open) return false;
    return this.openedAtMs === null || Date.now() - this.openedAtMs < this.settings.halfOpenAfterMs;
  }

  /**
   * Sends `send` through the breaker. The breaker stops waiting when
   * `signal` fires (the caller's deadline) and counts that as a failure, even
   * when the connector ignores its signal; a call without a signal is
   * bounded by BREAKER_CALL_CEILING_MS. Throws BreakerOpen, without calling
   * `send`, while the breaker refuses.
   */
  async call<T>(signal: AbortSignal | undefined, send: () => Promise<T>): Promise<T> {
    const bound = signal ?? AbortSignal.timeout(BREAKER_CALL_CEILING_MS);
    try {
      return await this.policy.execute(() => untilAborted(send(), bound));
    } catch (error) {
      if (error instanceof BrokenCircuitError) throw new BreakerOpen(this.connector);
      throw error;
    }
  }
}
