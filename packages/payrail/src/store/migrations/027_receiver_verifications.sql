-- Receivers' identity verification as Payrail keeps it, for a KYC provider
-- that verifies in sessions (Veriff): one row per receiver phone, made the
-- first time the receiver's status is asked. The provider is told the row's
-- reference (its pk as a provider UUID), never the phone number.
--
-- session_*: the receiver's current session at the provider (null before
-- the first). decision: 'none' before any session, 'pending' while the
-- session is open, then the provider's decision. decided_at_ms: the
-- provider's decision time; a decision older than the one kept never
-- replaces it. start_lease_*: the request that is starting a new session
-- right now, so at most one session is started per receiver at a time
-- (the lease ends by itself should that request die). checked_at_ms: when
-- the worker last asked the provider about the open session.
CREATE TABLE receiver_verifications (
  pk IDENTITY_PK,
  phone TEXT NOT NULL UNIQUE,
  connector TEXT NOT NULL,
  session_id TEXT,
  session_url TEXT,
  session_started_at_ms BIGINT,
  session_expires_at_ms BIGINT,
  decision TEXT NOT NULL DEFAULT 'none' CHECK (decision IN ('none', 'pending', 'approved', 'declined', 'resubmission_requested', 'expired', 'abandoned', 'review')),
  reason_code TEXT,
  decided_at_ms BIGINT,
  start_lease_token TEXT,
  start_lease_until_ms BIGINT,
  checked_at_ms BIGINT,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL
);

CREATE UNIQUE INDEX receiver_verifications_session ON receiver_verifications (session_id);
-- The worker's backstop: open sessions, oldest check first.
CREATE INDEX receiver_verifications_open ON receiver_verifications (decision, checked_at_ms);
