// What the Open Exchange Rates connector is configured with (behaviour.md
// section 18: PAYRAIL_OXR_*). config/openexchangerates.ts reads the
// environment; this file names the settings and the bounds the connector keeps.
import type { Secret } from '../../domain/secret.ts';

export interface OpenExchangeRatesSettings {
  /** The API root, e.g. https://openexchangerates.org/api; documented paths (/latest.json) are appended. */
  readonly url: string;
  /** The App ID, sent as `Authorization: Token <app id>`; revealed only into that header, never into a URL or a log. */
  readonly appId: Secret<string>;
  /** How often the table is fetched again while rates are being asked (PAYRAIL_OXR_REFRESH_SECONDS). */
  readonly refreshSeconds: number;
  /** A table whose `timestamp` is older than this quotes nothing (PAYRAIL_OXR_MAX_AGE_SECONDS). */
  readonly maxAgeSeconds: number;
  /** Deadline of one fetch of the table. */
  readonly fetchTimeoutMs?: number;
}

/**
 * A table whose `timestamp` is further ahead of Payrail's clock than this is
 * refused: its age would be negative, so it would never grow old enough to
 * be refused and would quote long after its rates were current. Ten minutes
 * allows for clocks that differ.
 */
export const TIMESTAMP_AHEAD_MAX_MS = 10 * 60_000;

/** The name PAYRAIL_FX_PROVIDER gives the connector. */
export const CONNECTOR_NAME = 'openexchangerates';

/**
 * One hour: the update interval of Open Exchange Rates' Free and Developer
 * plans (faster plans publish every 30, 10 or 5 minutes and may set a
 * shorter PAYRAIL_OXR_REFRESH_SECONDS). Fetching more often than the plan
 * publishes spends the monthly request quota on the same table.
 */
export const REFRESH_SECONDS_DEFAULT = 3_600;
/** Bounds of PAYRAIL_OXR_REFRESH_SECONDS: a minute (no plan publishes faster) to a day. */
export const REFRESH_SECONDS_MIN = 60;
export const REFRESH_SECONDS_MAX = 86_400;

/**
 * The default largest rate age is three refresh intervals. A table fetched
 * just before the plan publishes is already almost one interval old and is
 * kept one more interval until the next fetch, so two intervals is the age
 * a healthy deployment reaches; the third tolerates one failed refresh (a
 * blip at the provider) before checks are refused.
 */
export const MAX_AGE_REFRESHES_DEFAULT = 3;
/** The largest PAYRAIL_OXR_MAX_AGE_SECONDS: two days; older rates are not a market rate any more. */
export const MAX_AGE_SECONDS_MAX = 172_800;

/** Deadline of one fetch: the table is small, and a request may be waiting on it (within the look-up deadline of 10 s). */
export const FETCH_TIMEOUT_MS_DEFAULT = 8_000;

/**
 * After a fetch, rates are answered from the table held (or refused)
 * without asking the provider again on demand for this long: a provider
 * that is down, or keeps answering a table too old, is asked about twice a
 * minute, not once per request.
 */
export const PAUSE_AFTER_FETCH_MS = 30_000;

/** The largest answer read: a full table of every currency is about 10 KB; symbols keep it far smaller. */
export const RESPONSE_BODY_MAX_BYTES = 256 * 1024;

/**
 * Rates outside these bounds (receiver units per US dollar) are refused as
 * absurd: no currency Payrail pays out in is worth more than a million
 * dollars a unit or less than a billionth of one. A number outside them is
 * a broken answer, not a market.
 */
export const RATE_MIN = 0.000001;
export const RATE_MAX = 1_000_000_000;
