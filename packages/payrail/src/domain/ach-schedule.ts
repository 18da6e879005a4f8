// When Payrail asks an ACH network about an entry again (behaviour.md
// section 17), as rules: the worker's sweep (flows/ach/lifecycle.ts) asks
// these and writes the answer in next_check_at_ms. Times are on the
// network's clock (the merchant's sandbox ACH clock in the sandbox, the
// service clock elsewhere); the sweep converts them.
import type { AchState } from './ach.ts';

/**
 * How often an entry that is pending, originated or settled (and still
 * watched for returns) is asked about. Networks move entries once or twice
 * a business day (a cut-off, a settlement file, a returns file); an hour
 * notices each within the hour and costs a handful of calls per entry.
 */
export const ACH_STATUS_POLL_INTERVAL_MS = 60 * 60_000;

/**
 * A submission whose answer never arrived (its request died or timed out) is
 * sent again only after its first call must have ended: the network's
 * deadline plus this margin for the request to record what it heard.
 */
export const ACH_SUBMIT_MARGIN_MS = 15_000;

/** Backoff after a network call that failed (outcome unknown): from the least, doubling the last wait, up to the most. */
export const ACH_RETRY_MIN_MS = 30_000;
export const ACH_RETRY_MAX_MS = 60 * 60_000;

/**
 * An entry Payrail cannot ask about (its network is not the one configured,
 * or its first send is past the network's resend window) is looked at, and
 * logged as an error for the operator, once a day.
 */
export const ACH_STUCK_RECHECK_MS = 24 * 60 * 60_000;

/** The next wait after a failed call, given how long the entry last waited: doubled, within the bounds. */
export function achRetryDelayMs(lastWaitMs: number): number {
  return Math.min(ACH_RETRY_MAX_MS, Math.max(ACH_RETRY_MIN_MS, 2 * Math.max(0, lastWaitMs)));
}

/**
 * When an entry in `state` is asked about next, on the network's clock, or
 * null when nothing can change any more: final states never; a settled entry
 * until the network's return window after settlement has passed; an
 * originated debit no later than when Payrail's own rule settles it.
 */
export function achNextCheckAtMs(input: {
  readonly state: AchState;
  readonly nowMs: number;
  readonly settledAtMs: number | null;
  readonly returnWatchMs: number;
  /** An originated debit's own settlement time (domain/ach.ts settlesAtMs), or null. */
  readonly settlesAtMs?: number | null;
}): number | null {
  const poll = input.nowMs + ACH_STATUS_POLL_INTERVAL_MS;
  switch (input.state) {
    case 'pending':
    case 'voiding':
      return poll;
    case 'originated':
      return input.settlesAtMs === null || input.settlesAtMs === undefined ? poll : Math.max(input.nowMs, Math.min(poll, input.settlesAtMs));
    case 'settled': {
      const watchEndMs = (input.settledAtMs ?? input.nowMs) + input.returnWatchMs;
      return input.nowMs >= watchEndMs ? null : Math.min(poll, watchEndMs);
    }
    case 'submitting':
      return input.nowMs + ACH_RETRY_MIN_MS;
    default:
      return null;
  }
}
