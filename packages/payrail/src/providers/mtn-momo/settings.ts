// What the MTN MoMo connector is configured with (behaviour.md section 18:
// PAYRAIL_MTN_MOMO_*). The wiring reads the environment (config/mtn-momo.ts);
// this file only names the settings and the bounds the connector keeps.
import type { Secret } from '../../domain/secret.ts';

export interface MtnMomoSettings {
  /** The API root, e.g. https://sandbox.momodeveloper.mtn.com; the documented paths (/disbursement/...) are appended. */
  readonly url: string;
  /** The Disbursement product's subscription key (Ocp-Apim-Subscription-Key); each MoMo product has its own. */
  readonly subscriptionKey: Secret<string>;
  /** The API user (a UUID), the user name of the token request's Basic authentication. */
  readonly apiUser: string;
  /** The API key, its password. */
  readonly apiKey: Secret<string>;
  /** A deadline shorter than Payrail's for each call, when wanted (tests use a short one). */
  readonly callTimeoutMs?: number;
}

/** MoMo's name for the connector, as PAYRAIL_PAYOUT_NETWORK, the corridors file and the callback path spell it. */
export const CONNECTOR_NAME = 'mtn-momo';

/** The product whose paths the connector calls: payouts to wallets are MoMo's Disbursement product. */
export const PRODUCT_PATH = '/disbursement';

/**
 * Each call's own deadline when none is configured: Payrail's payout call
 * waits 30 s and a look-up 10 s; a token request is one more call in front
 * of them, so it gets its own, shorter bound.
 */
export const CALL_TIMEOUT_MS_DEFAULT = 20_000;

/**
 * A token is refreshed this long before MoMo says it expires. MTN advises a
 * refresh 10 minutes before the 60-minute expiry; a token MoMo grants for a
 * shorter time is refreshed at 5/6 of its life instead.
 */
export const TOKEN_REFRESH_MARGIN_MS = 10 * 60_000;

/** A token lives at least this long in the cache whatever expires_in says (a 0 would request a token per call). */
export const TOKEN_LIFETIME_MS_MIN = 10_000;

/** Longest expires_in believed (24 h); anything larger is treated as this. */
export const TOKEN_LIFETIME_MS_MAX = 24 * 3_600_000;

/** The largest answer body read (bytes): MoMo's answers are a few hundred bytes. */
export const RESPONSE_BODY_MAX_BYTES = 64 * 1024;

/** When to ask about a transfer first after MoMo took it: sandbox transfers end within seconds; MTN advises a status check after a missed callback. */
export const FIRST_POLL_AFTER_MS = 5_000;

/** When to ask again about a PENDING transfer. */
export const PENDING_RETRY_AFTER_MS = 30_000;

/**
 * payerMessage and payeeNote: MoMo refuses more than 160 characters, and
 * some markets refuse characters outside plain text (an apostrophe). The
 * connector writes its own short ASCII text, never the merchant's.
 */
export const NOTE_CHARS_MAX = 160;
