-- Card-data keys (docs/security.md, key rotation). Key 1 is the key Payrail
-- always had: the configured PAYRAIL_CARD_KEY or the sandbox's key file
-- (provider 'configured', nothing stored), unless the installation began
-- with a key provider that wraps (then key 1 is wrapped like the others).
-- Later keys are random data keys stored only wrapped by the key provider
-- (`wrapped`: its ciphertext); retiring a key drops its wrapping, after which
-- nothing can open what it sealed. active_from_ms: when the key starts
-- sealing new data (a little after it was added, so that every running
-- process has loaded it first).
CREATE TABLE card_data_keys (
  id BIGINT PRIMARY KEY CHECK (id >= 1),
  provider TEXT NOT NULL CHECK (provider IN ('configured', 'local', 'vault')),
  wrapped TEXT,
  state TEXT NOT NULL CHECK (state IN ('active', 'retired')),
  created_at_ms BIGINT NOT NULL,
  active_from_ms BIGINT NOT NULL,
  retired_at_ms BIGINT,
  CHECK (state = 'retired' OR provider = 'configured' OR wrapped IS NOT NULL),
  CHECK (state = 'active' OR wrapped IS NULL)
);

-- Where the re-seal job is in each sealed column (`target`, e.g.
-- 'charges.card_number_enc'): the last row key it finished, for the key it is
-- moving data to. Advanced in the transaction that re-sealed the batch, so a
-- job killed midway resumes after the last batch it committed.
CREATE TABLE card_key_reseal (
  target TEXT PRIMARY KEY,
  key_id BIGINT NOT NULL,
  after_key TEXT NOT NULL,
  done BIGINT NOT NULL DEFAULT 0,
  updated_at_ms BIGINT NOT NULL
);
