-- Panel sign-in: progressive delays instead of account lock-outs.
-- panel_pair_failures: failed attempts per account (e-mail) and client
-- address (an IPv6 /64 as one), and when the next attempt of that pair may
-- be checked (0: now). failures restarts after a quiet period.
-- panel_known_addresses: where an account last signed in successfully; an
-- address known to the account is not slowed down by strangers' failures
-- against it (panel_login_failures counts those, now as a delay too).
CREATE TABLE panel_pair_failures (
  email TEXT NOT NULL,
  address TEXT NOT NULL,
  failures BIGINT NOT NULL,
  window_started_at_ms BIGINT NOT NULL,
  locked_until_ms BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (email, address)
);
CREATE INDEX panel_pair_failures_window ON panel_pair_failures (window_started_at_ms);

CREATE TABLE panel_known_addresses (
  email TEXT NOT NULL,
  address TEXT NOT NULL,
  last_success_at_ms BIGINT NOT NULL,
  PRIMARY KEY (email, address)
);
