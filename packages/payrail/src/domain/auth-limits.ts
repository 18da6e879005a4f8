// The abuse limits on API authentication (docs/api-decisions.md section 13):
// how many wrong PINs lock a source key and for how long, how failed
// authentications are counted per client address, and the window of the
// request rate limits. Rules only; the counters live in the store.

/** Wrong PINs in a row that lock a source API key. */
export const PIN_FAILURES_MAX = 10;
/** How long a locked source key refuses every charge-API call. */
export const PIN_LOCKOUT_MS = 30 * 60_000;
/** Wrong-PIN counts of keys that are not locked are forgotten after this long without another one. */
export const PIN_FAILURES_FORGET_MS = 24 * 60 * 60_000;

/** Failed authentications of one client address are counted in windows of this length... */
export const ADDRESS_FAILURE_WINDOW_MS = 15 * 60_000;
/** ...and an address reaching the configured number in one window is refused for this long. */
export const ADDRESS_LOCKOUT_MS = 15 * 60_000;
/** Default of PAYRAIL_AUTH_FAILURES_PER_ADDRESS: failed authentications per address and window. */
export const ADDRESS_FAILURES_MAX_DEFAULT = 100;

/** Request rate limits count requests per minute (PAYRAIL_RATE_LIMIT_PER_MIN, ..._PER_ADDRESS_PER_MIN). */
export const RATE_WINDOW_MS = 60_000;
/** Defaults: requests per minute per credential, and per client address. */
export const RATE_LIMIT_PER_CREDENTIAL_DEFAULT = 6_000;
export const RATE_LIMIT_PER_ADDRESS_DEFAULT = 12_000;

/** The Retry-After value (whole seconds, at least 1) for a refusal that lasts until `untilMs`. */
export function retryAfterSeconds(untilMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((untilMs - nowMs) / 1000));
}
