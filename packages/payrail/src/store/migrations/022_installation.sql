-- The installation id (behaviour.md section 18): 128 random bits as 32 hex
-- digits, from which every idempotency key sent to a provider is derived
-- (domain/provider-keys.ts), so two installations never send the same key.
-- One row: `singleton` is always 1. The row is written by the store itself
-- right after migrating (store/installation.ts, insert-if-absent), not here:
-- neutral SQL has no random source both dialects share. A restored copy of
-- a store must take a new id before it talks to providers, or it would
-- replay the original's keys (the operations issue adds the command).
CREATE TABLE installation (
  singleton BIGINT PRIMARY KEY CHECK (singleton = 1),
  installation_id TEXT NOT NULL CHECK (length(installation_id) = 32),
  created_at_ms BIGINT NOT NULL
);
