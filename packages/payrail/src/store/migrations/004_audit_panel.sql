-- Audit trail, panel account security (second factor, idle sessions,
-- lock-out per address) and the page origins of hosted card forms. Written
-- once for SQLite and PostgreSQL in the neutral form that dialect.ts translates.

-- Who did what, to what, from where, when, and how it ended (PCI DSS 10.2).
-- Append-only: Payrail inserts rows and reads them, and no statement of its
-- own updates or deletes one (test/audit.test.ts checks the store's source).
-- On PostgreSQL, grant the service's role only INSERT and SELECT on it.
CREATE TABLE audit_events (
  id IDENTITY_PK,
  at_ms BIGINT NOT NULL,
  actor_kind TEXT NOT NULL CHECK (actor_kind IN ('user', 'credential', 'cli', 'system', 'anonymous')),
  -- User id, credential id (public part of a key, never a secret) or OS user of the CLI.
  actor_id TEXT,
  -- The e-mail of a user, or the one typed at a failed sign-in.
  actor_label TEXT,
  action TEXT NOT NULL,
  target TEXT,
  merchant_id TEXT,
  client_address TEXT,
  outcome TEXT NOT NULL CHECK (outcome IN ('success', 'failure', 'denied')),
  detail TEXT
);
CREATE INDEX audit_events_at ON audit_events (at_ms);
CREATE INDEX audit_events_action ON audit_events (action, id);

-- TOTP second factor (RFC 6238). totp_last_step is the last time step whose
-- code was accepted, so a code works once.
ALTER TABLE panel_users ADD COLUMN totp_secret TEXT;
ALTER TABLE panel_users ADD COLUMN totp_enrolled_at_ms BIGINT;
ALTER TABLE panel_users ADD COLUMN totp_last_step BIGINT NOT NULL DEFAULT 0;

-- One-time recovery codes for a lost authenticator; only SHA-256 hashes.
CREATE TABLE panel_recovery_codes (
  user_id TEXT NOT NULL REFERENCES panel_users(id),
  code_hash TEXT NOT NULL,
  created_at_ms BIGINT NOT NULL,
  used_at_ms BIGINT,
  PRIMARY KEY (user_id, code_hash)
);

-- Sessions end after 15 idle minutes (last_seen_at_ms) as well as at
-- expires_at_ms; authenticated_at_ms is the last password (and code) check,
-- for actions that want a recent one; code_pending is 1 between a right
-- password and the second factor, when the session can do nothing else.
-- Sessions made before this migration have last_seen_at_ms 0: they have ended.
ALTER TABLE panel_sessions ADD COLUMN last_seen_at_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE panel_sessions ADD COLUMN authenticated_at_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE panel_sessions ADD COLUMN code_pending BIGINT NOT NULL DEFAULT 0;
CREATE INDEX panel_sessions_last_seen ON panel_sessions (last_seen_at_ms);

-- Failed sign-ins per client address (an IPv6 /64 counts as one), counted
-- like panel_login_failures counts them per e-mail address.
CREATE TABLE panel_address_failures (
  address TEXT PRIMARY KEY,
  failures BIGINT NOT NULL,
  window_started_at_ms BIGINT NOT NULL,
  locked_until_ms BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX panel_address_failures_window ON panel_address_failures (window_started_at_ms);

-- Page origins allowed to show a source's hosted card form.
CREATE TABLE source_origins (
  source_id TEXT NOT NULL REFERENCES sources(id),
  origin TEXT NOT NULL,
  created_at_ms BIGINT NOT NULL,
  PRIMARY KEY (source_id, origin)
);
