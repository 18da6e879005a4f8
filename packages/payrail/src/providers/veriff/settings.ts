// What the Veriff connector is configured with (behaviour.md section 18:
// PAYRAIL_VERIFF_*). config/veriff.ts reads the environment; this file only
// names the settings and the bounds the connector keeps.
import type { Secret } from '../../domain/secret.ts';

export interface VeriffSettings {
  /** The integration's API root, e.g. https://stationapi.veriff.com; /v1/... is appended. */
  readonly url: string;
  /** The integration's API key, sent as X-AUTH-CLIENT. */
  readonly apiKey: Secret<string>;
  /** The integration's shared secret key: signs decision reads (X-HMAC-SIGNATURE) and verifies webhooks. */
  readonly sharedSecret: Secret<string>;
  /** A deadline shorter than Payrail's look-up deadline for each call, when wanted. */
  readonly callTimeoutMs?: number;
}

/** The connector's name, as PAYRAIL_KYC_PROVIDER and the callback path spell it. */
export const CONNECTOR_NAME = 'veriff';

/**
 * How long a session link works: Veriff documents a session as valid for
 * 7 days from its creation, after which it ends as `expired`. The create
 * answer carries no expiry, so Payrail keeps the documented one.
 */
export const SESSION_LIFETIME_MS = 7 * 24 * 3_600_000;

/** The largest answer read (bytes): a decision with person and document data is a few kilobytes. */
export const RESPONSE_BODY_MAX_BYTES = 256 * 1024;

/** Veriff's ids (sessions, attempts) are UUIDs; anything else is never put in a path. */
export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Longest vendorData Veriff accepts (its API reference: a string of up to 1000 characters). */
export const VENDOR_DATA_CHARS_MAX = 1000;
