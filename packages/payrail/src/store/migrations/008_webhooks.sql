-- Events and signed webhooks (docs/api-decisions.md sections 11 and 14).
-- Written once for SQLite and PostgreSQL in the neutral form that dialect.ts
-- translates.

-- The event log (a transactional outbox): one row per change a merchant
-- cares about, inserted in the transaction of the change, so an event exists
-- exactly when its change committed. The public id is `evt_<pk>`. No foreign
-- key to merchants: the insert is on the execute-transfer hot path and the
-- merchant is known to exist there. `fanned_out` is 0 until the delivery
-- worker has made the deliveries of the event (a flag, not a cursor: on
-- PostgreSQL identity values commit out of order, a cursor could skip one).
CREATE TABLE events (
  pk IDENTITY_PK,
  merchant_id TEXT NOT NULL,
  type TEXT NOT NULL,
  -- The object exactly as its GET endpoint showed it when the event happened.
  data_json TEXT NOT NULL,
  created_at_ms BIGINT NOT NULL,
  fanned_out BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX events_merchant ON events (merchant_id, pk);
CREATE INDEX events_to_fan_out ON events (pk) WHERE fanned_out = 0;

-- A merchant's webhook endpoints. The signing secret is sealed with a key
-- derived from the card-data key (src/crypto/webhook-secret.ts) because it
-- must be read back to sign; it is shown once, at creation and rotation.
CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  url TEXT NOT NULL,
  -- Space-separated event types with a space at each end (' a b '), or '' for all.
  event_types TEXT NOT NULL,
  enabled BIGINT NOT NULL DEFAULT 1,
  secret_enc BYTES NOT NULL,
  -- Since when every delivery attempt has failed (NULL after a success).
  failing_since_ms BIGINT,
  -- Set when Payrail disabled the endpoint itself (failing for 3 days).
  disabled_reason TEXT,
  -- After a failed attempt (or while its sends hang) the whole endpoint waits
  -- until paused_until_ms (growing with consecutive_failures): deliveries are
  -- claimed endpoint by endpoint and a paused one is skipped, so a dead
  -- endpoint's backlog is neither rewritten nor stepped over. New deliveries
  -- are made due then. (Comment only: the schema is as first applied.)
  consecutive_failures BIGINT NOT NULL DEFAULT 0,
  paused_until_ms BIGINT NOT NULL DEFAULT 0,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL
);
CREATE INDEX webhook_endpoints_merchant ON webhook_endpoints (merchant_id, created_at_ms);

-- One event to one endpoint. Pending until a 2xx (delivered) or until it has
-- been retried for 3 days (failed). A claim moves next_attempt_at_ms past the
-- send's deadline and bumps attempts, so another worker skips it, a crashed
-- worker's claim lapses, and a late result of a lapsed claim is refused.
CREATE TABLE webhook_deliveries (
  pk IDENTITY_PK,
  event_pk BIGINT NOT NULL REFERENCES events(pk),
  endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id),
  merchant_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts BIGINT NOT NULL DEFAULT 0,
  next_attempt_at_ms BIGINT NOT NULL,
  last_attempt_at_ms BIGINT,
  last_status_code BIGINT,
  last_error TEXT,
  last_latency_ms BIGINT,
  -- At most 1 KiB of the endpoint's answer; never logged.
  last_response_body TEXT,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at_ms) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, pk);
CREATE INDEX webhook_deliveries_endpoint_pending ON webhook_deliveries (endpoint_id, next_attempt_at_ms) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_pk);
