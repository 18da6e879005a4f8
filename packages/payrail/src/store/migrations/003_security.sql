-- Abuse limits on API authentication and environment binding of credentials
-- (docs/api-decisions.md sections 1 and 13). Written once for SQLite and
-- PostgreSQL in the neutral form that dialect.ts translates.

-- The environment a credential was issued for. Rows issued before this
-- migration have NULL here and are given the store's environment the first
-- time a process of this version starts on the store (src/flows/store-environment.ts).
ALTER TABLE credentials ADD COLUMN environment TEXT CHECK (environment IN ('sandbox', 'production'));

-- Wrong PINs in a row per source API key. The attempt that brings failures
-- to the limit sets locked_until_ms; a right PIN deletes the row.
CREATE TABLE pin_failures (
  credential_id TEXT PRIMARY KEY REFERENCES credentials(id),
  failures BIGINT NOT NULL,
  locked_until_ms BIGINT NOT NULL DEFAULT 0,
  updated_at_ms BIGINT NOT NULL
);
CREATE INDEX pin_failures_updated ON pin_failures (updated_at_ms);

-- Failed API authentications per client address (an IPv6 /64 counts as one)
-- within the current window, and the lock an address earns by reaching the limit.
CREATE TABLE auth_address_failures (
  address TEXT PRIMARY KEY,
  failures BIGINT NOT NULL,
  window_started_at_ms BIGINT NOT NULL,
  locked_until_ms BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX auth_address_failures_window ON auth_address_failures (window_started_at_ms);

-- Request counts of the rate limits, per bucket (a credential or a client
-- address) and fixed window, shared by every process on the store.
CREATE TABLE rate_limit_hits (
  bucket TEXT PRIMARY KEY,
  window_start_ms BIGINT NOT NULL,
  hits BIGINT NOT NULL
);
CREATE INDEX rate_limit_hits_window ON rate_limit_hits (window_start_ms);
