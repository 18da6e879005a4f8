-- The card transaction lifecycle (docs/api-decisions.md sections 10 and 14):
-- authorizations, capture, void, refunds, verify and settlement batches.
-- Written once for SQLite and PostgreSQL in the neutral form that dialect.ts
-- translates. Columns are added (never a table rebuilt), so rows written
-- before this migration keep their meaning: an approved charge was captured.

-- Settlement batches, one open batch per merchant at a time. Captured
-- transactions join the open batch; closing it settles them.
CREATE TABLE batches (
  id IDENTITY_PK,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  opened_at_ms BIGINT NOT NULL,
  closed_at_ms BIGINT
);
CREATE UNIQUE INDEX batches_one_open ON batches (merchant_id) WHERE closed_at_ms IS NULL;
CREATE INDEX batches_merchant ON batches (merchant_id, id);
CREATE INDEX batches_open_since ON batches (opened_at_ms) WHERE closed_at_ms IS NULL;

-- A refund is a transaction of its own (own reference number) in this table.
ALTER TABLE charges ADD COLUMN kind TEXT NOT NULL DEFAULT 'charge' CHECK (kind IN ('charge', 'refund'));
-- The refunded charge of a refund.
ALTER TABLE charges ADD COLUMN parent_pk BIGINT REFERENCES charges(pk);
-- 0 for `capture: false` (authorize only).
ALTER TABLE charges ADD COLUMN auto_capture BIGINT NOT NULL DEFAULT 1;
-- Where an approved transaction is: authorized, captured, settled, voided or
-- expired. NULL until the processor approves.
ALTER TABLE charges ADD COLUMN stage TEXT CHECK (stage IS NULL OR stage IN ('authorized', 'captured', 'settled', 'voided', 'expired'));
-- Money: what was captured (credited), what a void took back, what refunds
-- took back (held from their reservation, released if the processor says no).
ALTER TABLE charges ADD COLUMN captured_cents BIGINT NOT NULL DEFAULT 0 CHECK (captured_cents >= 0 AND captured_cents <= amount_cents);
ALTER TABLE charges ADD COLUMN voided_cents BIGINT NOT NULL DEFAULT 0 CHECK (voided_cents >= 0 AND voided_cents <= captured_cents);
ALTER TABLE charges ADD COLUMN refunded_cents BIGINT NOT NULL DEFAULT 0 CHECK (refunded_cents >= 0 AND refunded_cents + linked_cents <= captured_cents);
ALTER TABLE charges ADD COLUMN batch_id BIGINT REFERENCES batches(id);
ALTER TABLE charges ADD COLUMN settled_at_ms BIGINT;
-- A capture or void written before the processor is asked, so a crash
-- between its answer and the write is resolved by the worker, never guessed.
ALTER TABLE charges ADD COLUMN op TEXT CHECK (op IS NULL OR op IN ('capture', 'void'));
ALTER TABLE charges ADD COLUMN op_cents BIGINT;
ALTER TABLE charges ADD COLUMN op_source_id TEXT;
ALTER TABLE charges ADD COLUMN op_idem_key TEXT;
ALTER TABLE charges ADD COLUMN op_next_run_at_ms BIGINT;
-- The processor refused a void; a second void would need a second posting of its kind.
ALTER TABLE charges ADD COLUMN void_refused BIGINT NOT NULL DEFAULT 0;

UPDATE charges SET stage = 'captured', captured_cents = amount_cents WHERE status = 'approved';
-- Those captured charges join an open batch of their merchant, opened when the
-- oldest of them was made, so the next daily close settles them.
INSERT INTO batches (merchant_id, opened_at_ms)
  SELECT merchant_id, MIN(created_at_ms) FROM charges WHERE stage = 'captured' GROUP BY merchant_id;
UPDATE charges SET batch_id = (SELECT b.id FROM batches b WHERE b.merchant_id = charges.merchant_id AND b.closed_at_ms IS NULL)
  WHERE stage = 'captured';

CREATE INDEX charges_merchant_stage ON charges (merchant_id, stage);
CREATE INDEX charges_authorized ON charges (created_at_ms) WHERE stage = 'authorized';
CREATE INDEX charges_op_due ON charges (op_next_run_at_ms) WHERE op IS NOT NULL;
CREATE INDEX charges_parent ON charges (parent_pk);
CREATE INDEX charges_batch ON charges (batch_id);

-- Zero-amount card checks. Their reference numbers come from a range of
-- their own, far above any charge's, so one number names one transaction.
CREATE TABLE verifications (
  pk IDENTITY_PK,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  source_id TEXT NOT NULL REFERENCES sources(id),
  status TEXT NOT NULL CHECK (status IN ('approved', 'pending', 'declined', 'failed')),
  card_type TEXT NOT NULL,
  last4 TEXT NOT NULL,
  bin TEXT NOT NULL,
  expiry_month BIGINT NOT NULL,
  expiry_year BIGINT NOT NULL,
  -- Kept only while the processor may need to be asked again; erased once final.
  card_number_enc BYTES NOT NULL,
  avs_result_code TEXT,
  cvv_result_code TEXT,
  error_code TEXT,
  error_message TEXT,
  processor_ref TEXT,
  request_json TEXT NOT NULL,
  idem_key TEXT,
  next_run_at_ms BIGINT,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL
);
CREATE INDEX verifications_merchant_created ON verifications (merchant_id, created_at_ms);
CREATE INDEX verifications_pending ON verifications (next_run_at_ms) WHERE status = 'pending';
@identity_start verifications.pk 900000000000001;
