-- Control panel accounts, sessions and login lock-out. Written once for SQLite
-- and PostgreSQL in the neutral form that dialect.ts translates.

-- People who sign in to /dashboard. An operator runs the deployment and sees
-- every merchant; a merchant user sees only its own merchant's data.
CREATE TABLE panel_users (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL CHECK (role IN ('operator', 'merchant')),
  merchant_id TEXT REFERENCES merchants(id),
  -- scrypt$<N>$<r>$<p>$<salt base64>$<hash base64>: parameters travel with the hash.
  password_hash TEXT NOT NULL,
  created_at_ms BIGINT NOT NULL,
  disabled_at_ms BIGINT,
  CHECK ((role = 'operator' AND merchant_id IS NULL) OR (role = 'merchant' AND merchant_id IS NOT NULL))
);
CREATE INDEX panel_users_merchant ON panel_users (merchant_id);

-- Only a SHA-256 of the session token is kept, so a copy of the database
-- cannot be used to sign in.
CREATE TABLE panel_sessions (
  token_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES panel_users(id),
  created_at_ms BIGINT NOT NULL,
  expires_at_ms BIGINT NOT NULL
);
CREATE INDEX panel_sessions_user ON panel_sessions (user_id);
CREATE INDEX panel_sessions_expires ON panel_sessions (expires_at_ms);

-- Failed sign-ins per e-mail address (known or not, so lock-out does not
-- reveal which addresses exist) within the current window.
CREATE TABLE panel_login_failures (
  email TEXT PRIMARY KEY,
  failures BIGINT NOT NULL,
  window_started_at_ms BIGINT NOT NULL,
  locked_until_ms BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX panel_login_failures_window ON panel_login_failures (window_started_at_ms);
