// What the pawaPay connector is configured with (behaviour.md section 18:
// PAYRAIL_PAWAPAY_*). The wiring reads the environment; this file only names
// the settings and the bounds the connector keeps.
import type { Secret } from '../../domain/secret.ts';

export interface PawaPaySettings {
  /** API root, e.g. https://api.sandbox.pawapay.io (production: https://api.pawapay.io); documented paths such as /v2/payouts are appended. */
  readonly url: string;
  /** The API token from pawaPay's dashboard (Authorization: Bearer); revealed only into that header. */
  readonly token: Secret<string>;
  /** A deadline shorter than Payrail's PAYOUT_CALL_TIMEOUT_MS for each submit or poll, when wanted. */
  readonly callTimeoutMs?: number;
  /** The clock callbacks' signature expiry is checked against (tests move it); Date.now by default. */
  readonly nowMs?: () => number;
}

/** The connector's name, as PAYRAIL_PAYOUT_NETWORK, a corridor's payout_connector and the callback path spell it. */
export const CONNECTOR_NAME = 'pawapay';

/** The path pawaPay is told to post callbacks to (the route's path under this name); signatures cover it. */
export const CALLBACK_PATH = `/providers/${CONNECTOR_NAME}/callbacks`;

/** The largest answer body read (bytes): pawaPay's answers are a few kilobytes; active configuration with every country well under 1 MB. */
export const RESPONSE_BODY_MAX_BYTES = 1024 * 1024;

/** Look-ups (predict-provider) wait at most this long: a client's request is waiting. */
export const LOOKUP_TIMEOUT_MS = 8_000;

/** Fetching pawaPay's callback signing keys waits at most this long (a callback is answered 401 otherwise and pawaPay retries). */
export const KEY_FETCH_TIMEOUT_MS = 5_000;

/** How long fetched signing keys are trusted before they are read again. */
export const KEY_CACHE_TTL_MS = 60 * 60_000;

/** An unknown key id makes the keys be read again, but not more often than this (a stream of forged key ids must not hammer pawaPay). */
export const KEY_REFRESH_MIN_INTERVAL_MS = 60_000;

/** Keys read from pawaPay at most (it publishes one or two). */
export const KEYS_MAX = 16;

/** When to poll first after pawaPay took a payout: payouts usually complete within seconds. */
export const FIRST_POLL_AFTER_MS = 5_000;

/** When to poll a payout still in flight again. */
export const PENDING_RETRY_AFTER_MS = 15_000;

/** When to poll an enqueued payout again (its provider is down; pawaPay sends it when the provider is back). */
export const ENQUEUED_RETRY_AFTER_MS = 5 * 60_000;

/** A signature whose `expires` passed this long ago is still taken: clocks differ a little. */
export const SIGNATURE_CLOCK_SKEW_MS = 5 * 60_000;

/** A signature `created` at most this far ahead of Payrail's clock is taken: clocks differ a little, a signature from further ahead is forged or from a broken clock. */
export const SIGNATURE_CREATED_AHEAD_MAX_MS = 60_000;

/**
 * A signature `created` longer ago than this is refused, whatever its
 * `expires` says: it bounds how long a captured callback can be replayed.
 * pawaPay retries a callback for up to 15 minutes, so this refuses none of
 * its retries; polling moves a payout whose callback was refused.
 */
export const SIGNATURE_AGE_MAX_MS = 15 * 60_000;
