// A circuit breaker per connector (behaviour.md section 18), on cockatiel's
// consecutive-failure breaker. A provider that is down costs every caller
// its whole deadline; after BREAKER_DEFAULTS.consecutiveFailuresMax calls in
// a row fail (a thrown error or no answer by the caller's deadline), the
// breaker opens and refuses further calls before anything is sent, until
// halfOpenAfterMs has passed; the next call is then sent as a trial (calls
// arriving meanwhile wait for it, each until its own deadline), and its
// answer closes the breaker again, its failure opens it for another interval.
//
// What counts: any answer is a success, a decline or a rejection included
// (the provider is up and said no). Two kinds of error count neither way
// (the run of failures is left as it was):
// - NotSent: the caller had given up before the call was sent (below);
// - any error with a property `countsAgainstBreaker === false`. This is the
//   contract for connectors: an error that does not mean the provider is
//   unavailable (it answered, but the answer cannot be used) carries that
//   property, own or inherited (countsAgainstBreaker()). A trial call
//   ending in such an error closes the breaker: the provider answered.
//
// A call is never sent for a caller that has given up. A call made with an
// already aborted signal is refused before the breaker sees it (so it is
// never a trial), and a call waiting behind a trial stops waiting when its
// signal fires and is never sent, even when the trial then succeeds: both
// throw NotSent. Otherwise every caller queued behind a long trial would be
// sent, expired, the moment the trial succeeds, fail at once, and open the
// breaker again.
//
// A refusal is thrown as BreakerOpen (or NotSent), an error: every flow
// treats a thrown error as "outcome unknown" (nothing was sent, which the
// connector contracts allow for an unknown outcome: the same reference is
// asked again later), so the breaker never turns an unknown outcome into a
// failure. On the request path a refusal is a 503 service_unavailable with
// nothing written.
import { BrokenCircuitError, CircuitState, ConsecutiveBreaker, circuitBreaker, handleWhen, type CircuitBreakerPolicy } from 'cockatiel';
import type { Logger } from 'pino';
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

/**
 * A call the breaker did not send because its caller had already given up
 * (its signal had fired: before the call, or while it waited behind a
 * half-open breaker's trial). Nothing reached the provider; an error, so
 * callers treat it as an unknown outcome. Never counted as a failure.
 */
export class NotSent extends Error {
  override readonly name = 'NotSent';
  readonly countsAgainstBreaker = false;
  constructor(
    readonly connector: string,
    reason: unknown,
  ) {
    const why = reason instanceof Error ? reason.message : String(reason);
    super(`the call to connector ${connector} was not sent: its caller had given up (${why.slice(0, 200)})`, { cause: reason });
  }
}

/**
 * Whether a thrown error counts as a failure of the provider. The contract:
 * a connector marks an error that does not mean the provider is unavailable
 * (it answered, but the answer cannot be used) with an own or inherited
 * property `countsAgainstBreaker` set to `false`; such an error reaches the
 * caller unchanged (an unknown outcome) and leaves the breaker as it was.
 * Every other error counts, whatever else it carries.
 */
export function countsAgainstBreaker(error: unknown): boolean {
  if (error instanceof NotSent) return false;
  return !(typeof error === 'object' && error !== null && (error as { countsAgainstBreaker?: unknown }).countsAgainstBreaker === false);
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
    /** Where opening and closing are reported: an operator wants to know a provider is down, and when it is back. */
    log?: Logger,
  ) {
    this.policy = circuitBreaker(handleWhen(countsAgainstBreaker), {
      halfOpenAfter: settings.halfOpenAfterMs,
      breaker: new ConsecutiveBreaker(settings.consecutiveFailuresMax),
    });
    this.policy.onBreak(() => {
      this.openedAtMs = Date.now();
      log?.warn(
        { connector, half_open_after_ms: settings.halfOpenAfterMs },
        'circuit breaker opened: calls to this connector are refused until a trial call answers',
      );
    });
    this.policy.onReset(() => log?.info({ connector }, 'circuit breaker closed: the connector answers again'));
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
   * `send`, while the breaker refuses; throws NotSent, without calling
   * `send`, when `signal` has fired before the call could be sent (already
   * at the call, or while it waited behind a trial).
   */
  async call<T>(signal: AbortSignal | undefined, send: () => Promise<T>): Promise<T> {
    const bound = signal ?? AbortSignal.timeout(BREAKER_CALL_CEILING_MS);
    // Before the breaker sees it: an expired call must never be a half-open breaker's trial.
    if (bound.aborted) throw new NotSent(this.connector, bound.reason);
    let sent = false;
    const attempt = (): Promise<T> => {
      // A call that waited behind a trial runs only after it: its caller may be gone by then.
      if (bound.aborted) throw new NotSent(this.connector, bound.reason);
      sent = true;
      return untilAborted(send(), bound);
    };
    const running = this.policy.execute(attempt);
    try {
      // Not only `running`: a caller waiting behind a trial goes at its own deadline.
      return await untilAborted(running, bound);
    } catch (error) {
      if (error instanceof BrokenCircuitError) throw new BreakerOpen(this.connector);
      if (sent) {
        // The same signal ends the sent call inside the breaker at once: let the breaker count it before the caller goes on.
        await running.catch(() => undefined);
        throw error;
      }
      if (!(error instanceof NotSent) && bound.aborted) throw new NotSent(this.connector, bound.reason);
      throw error;
    }
  }
}
