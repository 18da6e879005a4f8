-- An event's webhook deliveries are made with the event, in the statement
-- or transaction that writes it (store/events.ts), instead of by the
-- delivery worker's fan-out afterwards; and a delivery's key to its event goes.
--
-- Why: the fan-out rewrote every event of a merchant with an endpoint
-- (`fanned_out` 0 -> 1): on PostgreSQL a new version of the whole row, data
-- included, with a new entry in each of its indexes (the flag is in one
-- index's condition, so the update is never HOT), in a transaction of its
-- own. And each delivery's key to its event locked that event row
-- (FOR KEY SHARE). Measured on PostgreSQL with an endpoint subscribed to
-- every event and 32 connections executing transfers: the fan-out update
-- 47-58 us and the deliveries' insert 66-88 us of PostgreSQL's time per
-- transfer (about three events each); the insert without the key, 15 us per
-- delivery instead of 32.
--
-- `fanned_out` now says only that an event needs no fan-out: new events are
-- written with 1. Rows with 0 are those written before this version (or by
-- a process of the earlier version still running beside this one): the
-- worker still fans them out, and the partial index still finds them.
--
-- What the key guarded is kept by the statements: a delivery is written with
-- its event, in the same transaction, or by that fan-out from an existing
-- event row it holds locked; events are deleted only with their deliveries
-- (store/events.ts pruneEventsBefore). The key to the endpoint stays: an
-- endpoint can be deleted while events are being written.
--
-- SQLite drops a constraint only by rebuilding the table (as in 011), its
-- identity sequence carried over.
@only postgres
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_pk_fkey;
@end
@only sqlite
CREATE TABLE webhook_deliveries_rebuilt (
  pk INTEGER PRIMARY KEY AUTOINCREMENT,
  event_pk INTEGER NOT NULL,
  endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id),
  merchant_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at_ms INTEGER NOT NULL,
  last_attempt_at_ms INTEGER,
  last_status_code INTEGER,
  last_error TEXT,
  last_latency_ms INTEGER,
  -- At most 1 KiB of the endpoint's answer; never logged.
  last_response_body TEXT,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
);
INSERT INTO webhook_deliveries_rebuilt SELECT * FROM webhook_deliveries;
DELETE FROM sqlite_sequence WHERE name = 'webhook_deliveries_rebuilt';
INSERT INTO sqlite_sequence (name, seq) SELECT 'webhook_deliveries_rebuilt', seq FROM sqlite_sequence WHERE name = 'webhook_deliveries';
DROP TABLE webhook_deliveries;
ALTER TABLE webhook_deliveries_rebuilt RENAME TO webhook_deliveries;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at_ms) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, pk);
CREATE INDEX webhook_deliveries_endpoint_pending ON webhook_deliveries (endpoint_id, next_attempt_at_ms) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_pk);
@end
