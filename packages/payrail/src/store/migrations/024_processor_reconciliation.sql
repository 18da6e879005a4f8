-- Reconciliation with the card processor (flows/operations/processor-reconciliation.ts):
-- once a day Payrail compares the processor's settled batches of a UTC day
-- with its own settled transactions and keeps every difference here until an
-- operator resolves it. Nothing here changes a payment or the ledger.

-- One row per reconciled day: the lease that keeps two workers (or a worker
-- and `payrail reconcile processor`) from running the same day at once, and
-- what the last run found. `day` is YYYY-MM-DD (UTC).
CREATE TABLE processor_reconciliation_runs (
  day TEXT PRIMARY KEY,
  processor TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed')),
  -- A running run's lease; a failed run's earliest retry; a done run's finish.
  lease_until_ms BIGINT NOT NULL,
  -- Counts the day's runs; each difference keeps the run that last found it.
  run_number BIGINT NOT NULL,
  started_at_ms BIGINT NOT NULL,
  finished_at_ms BIGINT,
  processor_batches BIGINT NOT NULL DEFAULT 0,
  processor_transactions BIGINT NOT NULL DEFAULT 0,
  payrail_transactions BIGINT NOT NULL DEFAULT 0,
  differences_found BIGINT NOT NULL DEFAULT 0,
  error TEXT
);

-- A difference is named by its day, kind and subject (ref:<processor ref>,
-- charge:<pk> or batch:<processor batch id>), so a re-run of a day updates
-- its rows instead of adding new ones. Resolved rows are kept (who, when, why).
CREATE TABLE processor_differences (
  pk IDENTITY_PK,
  day TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('unknown_to_payrail', 'missing_at_processor', 'amount_mismatch', 'kind_mismatch', 'state_mismatch', 'batch_total_mismatch')),
  subject TEXT NOT NULL,
  processor_batch_id TEXT,
  processor_ref TEXT,
  charge_pk BIGINT,
  merchant_id TEXT,
  payrail_cents BIGINT,
  processor_cents BIGINT,
  detail TEXT NOT NULL,
  found_at_ms BIGINT NOT NULL,
  -- When and by which run of the day it was last found; a re-run resolves the open rows it no longer finds.
  seen_at_ms BIGINT NOT NULL,
  seen_run BIGINT NOT NULL,
  resolved_at_ms BIGINT,
  resolved_by TEXT,
  resolution_note TEXT
);
CREATE UNIQUE INDEX processor_differences_subject ON processor_differences (day, kind, subject);
CREATE INDEX processor_differences_open ON processor_differences (pk) WHERE resolved_at_ms IS NULL;

-- The job looks charges up by the processor's id, and reads one day of
-- settled charges of every merchant. Both sparse: pending and declined
-- charges carry no settlement time.
CREATE INDEX charges_processor_ref ON charges (processor_ref) WHERE processor_ref IS NOT NULL;
CREATE INDEX charges_settled ON charges (settled_at_ms) WHERE settled_at_ms IS NOT NULL;
