-- Payrail schema. Written once for SQLite and PostgreSQL in the neutral form
-- that dialect.ts translates: BIGINT, BYTES, IDENTITY_PK, @identity_start.

CREATE TABLE merchants (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  payouts_must_link BIGINT NOT NULL DEFAULT 0,
  created_at_ms BIGINT NOT NULL
);

CREATE TABLE sources (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  name TEXT NOT NULL,
  created_at_ms BIGINT NOT NULL,
  revoked_at_ms BIGINT
);
CREATE INDEX sources_merchant ON sources (merchant_id);

-- Only hashes of secrets are kept. `id` is the public lookup part of a key.
CREATE TABLE credentials (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  source_id TEXT REFERENCES sources(id),
  kind TEXT NOT NULL CHECK (kind IN ('transfer_key', 'source_key', 'tokenization_token')),
  secret_hash TEXT NOT NULL,
  pin_hash TEXT,
  created_at_ms BIGINT NOT NULL,
  revoked_at_ms BIGINT
);
CREATE INDEX credentials_merchant ON credentials (merchant_id);

-- Ledger accounts. balance_cents = credits - debits, kept in the same
-- transaction as every posting; floor_cents is the lowest balance allowed
-- (minus the overdraft), NULL for operator accounts that have no floor.
CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  merchant_id TEXT REFERENCES merchants(id),
  kind TEXT NOT NULL,
  currency TEXT NOT NULL,
  balance_cents BIGINT NOT NULL DEFAULT 0,
  floor_cents BIGINT,
  created_at_ms BIGINT NOT NULL,
  CHECK (floor_cents IS NULL OR balance_cents >= floor_cents)
);
CREATE INDEX accounts_merchant ON accounts (merchant_id);

-- A posting moves amount_cents from one account (debit) to another
-- (credit): balanced by construction. Immutable: never updated or deleted.
-- One posting per business record and state change, enforced by UNIQUE.
CREATE TABLE postings (
  id IDENTITY_PK,
  debit_account_id TEXT NOT NULL REFERENCES accounts(id),
  credit_account_id TEXT NOT NULL REFERENCES accounts(id),
  amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
  kind TEXT NOT NULL,
  merchant_id TEXT,
  ref_type TEXT NOT NULL,
  ref_id TEXT NOT NULL,
  created_at_ms BIGINT NOT NULL,
  CHECK (debit_account_id <> credit_account_id),
  UNIQUE (ref_type, ref_id, kind)
);
CREATE INDEX postings_debit ON postings (debit_account_id);
CREATE INDEX postings_credit ON postings (credit_account_id);

CREATE TABLE transfers (
  pk IDENTITY_PK,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  id TEXT NOT NULL,
  sender_phone TEXT NOT NULL,
  receiver_phone TEXT NOT NULL,
  amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
  service TEXT NOT NULL,
  receiver_country TEXT NOT NULL,
  receiver_currency TEXT NOT NULL,
  fx_rate TEXT NOT NULL,
  received_minor BIGINT NOT NULL,
  attributes_json TEXT NOT NULL,
  state BIGINT NOT NULL,
  substate BIGINT NOT NULL,
  final BIGINT NOT NULL DEFAULT 0,
  code BIGINT NOT NULL DEFAULT 0,
  waiting_for TEXT,
  payment_id TEXT,
  provider_ref TEXT,
  provider_error_text TEXT,
  provider_error_code TEXT,
  trans TEXT,
  sum_prov TEXT,
  attempts BIGINT NOT NULL DEFAULT 0,
  next_run_at_ms BIGINT,
  lease_until_ms BIGINT NOT NULL DEFAULT 0,
  submitted_at_ms BIGINT,
  invitation_expires_at_ms BIGINT,
  gateway_charge_pk BIGINT,
  version BIGINT NOT NULL DEFAULT 0,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL,
  UNIQUE (merchant_id, id)
);
CREATE INDEX transfers_due ON transfers (next_run_at_ms) WHERE final = 0;
CREATE INDEX transfers_receiver_waiting ON transfers (receiver_phone) WHERE final = 0 AND substate = 9;
CREATE INDEX transfers_merchant_created ON transfers (merchant_id, created_at_ms);

CREATE TABLE transfer_events (
  id IDENTITY_PK,
  transfer_pk BIGINT NOT NULL REFERENCES transfers(pk),
  state BIGINT NOT NULL,
  substate BIGINT NOT NULL,
  note TEXT,
  at_ms BIGINT NOT NULL
);
CREATE INDEX transfer_events_transfer ON transfer_events (transfer_pk);

-- Quotes from check transfer, honoured by execute of the same id for 15 minutes.
CREATE TABLE quotes (
  merchant_id TEXT NOT NULL,
  transfer_id TEXT NOT NULL,
  service TEXT NOT NULL,
  amount_cents BIGINT NOT NULL,
  fx_rate TEXT NOT NULL,
  expires_at_ms BIGINT NOT NULL,
  PRIMARY KEY (merchant_id, transfer_id)
);
CREATE INDEX quotes_expires ON quotes (expires_at_ms);

CREATE TABLE charges (
  pk IDENTITY_PK,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  source_id TEXT NOT NULL REFERENCES sources(id),
  status TEXT NOT NULL CHECK (status IN ('approved', 'pending', 'declined', 'failed')),
  amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
  currency TEXT NOT NULL,
  card_type TEXT NOT NULL,
  last4 TEXT NOT NULL,
  bin TEXT NOT NULL,
  expiry_month BIGINT NOT NULL,
  expiry_year BIGINT NOT NULL,
  card_number_enc BYTES NOT NULL,
  auth_code TEXT,
  avs_result_code TEXT,
  cvv_result_code TEXT,
  error_code TEXT,
  error_message TEXT,
  processor_ref TEXT,
  request_json TEXT NOT NULL,
  -- The Idempotency-Key the charge was made with, so whoever records its
  -- outcome (the request, or the worker after a crash) also stores the reply.
  idem_key TEXT,
  linked_cents BIGINT NOT NULL DEFAULT 0,
  next_run_at_ms BIGINT,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL,
  CHECK (linked_cents >= 0 AND linked_cents <= amount_cents)
);
CREATE INDEX charges_merchant_created ON charges (merchant_id, created_at_ms);
CREATE INDEX charges_pending ON charges (next_run_at_ms) WHERE status = 'pending';
-- Reference numbers start at nine digits so they never look like small counters.
@identity_start charges.pk 100000001;

CREATE TABLE transfer_links (
  transfer_pk BIGINT PRIMARY KEY REFERENCES transfers(pk),
  charge_pk BIGINT NOT NULL REFERENCES charges(pk),
  amount_cents BIGINT NOT NULL,
  how TEXT NOT NULL,
  created_at_ms BIGINT NOT NULL
);
CREATE INDEX transfer_links_charge ON transfer_links (charge_pk);

-- Nonces from tokenization. The card number is encrypted; the security code
-- is encrypted too and erased when the nonce is used.
CREATE TABLE nonces (
  nonce_hash TEXT PRIMARY KEY,
  source_id TEXT NOT NULL REFERENCES sources(id),
  merchant_id TEXT NOT NULL,
  card_number_enc BYTES NOT NULL,
  cvv_enc BYTES,
  card_type TEXT NOT NULL,
  last4 TEXT NOT NULL,
  bin TEXT NOT NULL,
  expiry_month BIGINT NOT NULL,
  expiry_year BIGINT NOT NULL,
  created_at_ms BIGINT NOT NULL,
  expires_at_ms BIGINT NOT NULL,
  used_at_ms BIGINT
);
CREATE INDEX nonces_expires ON nonces (expires_at_ms);

CREATE TABLE idempotency_keys (
  source_id TEXT NOT NULL,
  idem_key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  status_code BIGINT NOT NULL,
  response_json TEXT NOT NULL,
  created_at_ms BIGINT NOT NULL,
  PRIMARY KEY (source_id, idem_key)
);
CREATE INDEX idempotency_created ON idempotency_keys (created_at_ms);

-- Sandbox network state that differs from the catalogue's defaults (a
-- receiver who completed KYC or accepted an invitation).
CREATE TABLE sandbox_receivers (
  phone TEXT PRIMARY KEY,
  registered BIGINT NOT NULL,
  kyc_verified BIGINT NOT NULL,
  money_limit_cents BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL
);

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
