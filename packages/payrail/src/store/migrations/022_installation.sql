-- The installation id (behaviour.md section 18): 128 random bits as 32 hex
-- digits, from which every idempotency key sent to a provider is derived
-- (domain/provider-keys.ts), so two installations never send the same key.
-- One row: `singleton` is always 1. The row is written by the store itself
-- right after migrating (store/installation.ts, insert-if-absent), not here:
-- neutral SQL has no random source both dialects share. A restored copy of
-- a store must take a new id before it talks to providers, or it would
-- replay the original's keys.
-- The legacy_*_pk_max columns are the highest primary keys of charges,
-- verifications and transfers when the row was written: those records were
-- made before provider keys existed and may have been sent to a provider
-- under their first key (the bare number, `transfer-<pk>`), so they keep it;
-- a new key for a payment already in flight could be paid twice by a
-- provider that deduplicates on the key. A new store records 0s.
CREATE TABLE installation (
  singleton BIGINT PRIMARY KEY CHECK (singleton = 1),
  installation_id TEXT NOT NULL CHECK (length(installation_id) = 32),
  legacy_charge_pk_max BIGINT NOT NULL,
  legacy_verification_pk_max BIGINT NOT NULL,
  legacy_transfer_pk_max BIGINT NOT NULL,
  created_at_ms BIGINT NOT NULL
);
