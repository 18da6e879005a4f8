-- Self-service sandbox sign-up, one-time e-mail links, panel team roles and
-- the mail outbox (issue 15). Neutral SQL, translated by dialect.ts.

-- Mail waiting to be sent, written in the same transaction as the change it
-- announces, so a rolled-back change sends nothing and a crash loses nothing.
-- The worker claims due rows with a lease (lease_until_ms), so several worker
-- processes never send one row at the same time.
CREATE TABLE mail_outbox (
  id IDENTITY_PK,
  kind TEXT NOT NULL,
  to_address TEXT NOT NULL,
  subject TEXT NOT NULL,
  text_body TEXT NOT NULL,
  html_body TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
  attempts BIGINT NOT NULL DEFAULT 0,
  next_attempt_at_ms BIGINT NOT NULL,
  lease_until_ms BIGINT NOT NULL DEFAULT 0,
  created_at_ms BIGINT NOT NULL,
  sent_at_ms BIGINT,
  last_error TEXT
);
CREATE INDEX mail_outbox_due ON mail_outbox (status, next_attempt_at_ms);
CREATE INDEX mail_outbox_to ON mail_outbox (to_address, created_at_ms);

-- One-time links sent by e-mail. A token is "<id>.<secret>": the id finds the
-- row, only a SHA-256 of the secret is kept and compared in constant time.
-- used_at_ms is set in the same transaction as the link's effect.
CREATE TABLE link_tokens (
  id TEXT PRIMARY KEY,
  secret_hash TEXT NOT NULL,
  purpose TEXT NOT NULL CHECK (purpose IN ('signup_confirm', 'credentials', 'password_reset', 'invitation')),
  -- What the link acts on: a sign-up request, a merchant, a user.
  subject TEXT NOT NULL,
  -- The address the link was sent to, and for an invitation the role offered.
  email TEXT NOT NULL,
  detail TEXT,
  created_at_ms BIGINT NOT NULL,
  expires_at_ms BIGINT NOT NULL,
  used_at_ms BIGINT
);
CREATE INDEX link_tokens_subject ON link_tokens (purpose, subject);

-- Requests for sandbox access from the public sign-up page.
CREATE TABLE signup_requests (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  company TEXT NOT NULL,
  email TEXT NOT NULL,
  corridors TEXT NOT NULL,
  client_address TEXT,
  status TEXT NOT NULL CHECK (status IN ('unconfirmed', 'confirmed', 'approved', 'rejected')),
  created_at_ms BIGINT NOT NULL,
  confirmed_at_ms BIGINT,
  decided_at_ms BIGINT,
  merchant_id TEXT REFERENCES merchants(id)
);
CREATE INDEX signup_requests_status ON signup_requests (status, created_at_ms);
-- At most one open request per address, even with two submissions at once.
CREATE UNIQUE INDEX signup_requests_open_email ON signup_requests (email) WHERE status IN ('unconfirmed', 'confirmed');

-- What a merchant user may do in the panel: admin (everything, including the
-- team), developer (keys and webhooks), viewer (read only). Operators have
-- none. Existing merchant users keep doing everything.
ALTER TABLE panel_users ADD COLUMN merchant_role TEXT CHECK (merchant_role IN ('admin', 'developer', 'viewer'));
UPDATE panel_users SET merchant_role = 'admin' WHERE role = 'merchant';
