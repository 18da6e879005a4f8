-- Stored customers, saved cards (payment methods) and recurring schedules
-- (docs/api-decisions.md section 15). Neutral SQL, translated by dialect.ts.

-- A merchant's customers. `identifier` is the merchant's own name for the
-- customer; `customer_number` its own key (shop plugins look customers up by it).
CREATE TABLE customers (
  pk IDENTITY_PK,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  identifier TEXT NOT NULL,
  customer_number TEXT,
  email TEXT,
  first_name TEXT,
  last_name TEXT,
  phone TEXT,
  active BIGINT NOT NULL DEFAULT 1 CHECK (active >= 0 AND active <= 1),
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL,
  -- Deleted customers stay for their transactions' sake and read as absent.
  deleted_at_ms BIGINT
);
CREATE INDEX customers_merchant ON customers (merchant_id, pk) WHERE deleted_at_ms IS NULL;
CREATE INDEX customers_number ON customers (merchant_id, customer_number) WHERE deleted_at_ms IS NULL;

-- Saved cards. The number is sealed under the card-data key (bound to the
-- saving source), the security code is never kept. `fingerprint` (an HMAC of
-- the number under a key derived for that purpose) finds the same card saved
-- twice for one customer; deleting a method erases its sealed number and its
-- fingerprint in one statement.
CREATE TABLE payment_methods (
  pk IDENTITY_PK,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  customer_pk BIGINT NOT NULL REFERENCES customers(pk),
  source_id TEXT NOT NULL REFERENCES sources(id),
  card_number_enc BYTES NOT NULL,
  fingerprint TEXT,
  card_type TEXT NOT NULL,
  last4 TEXT NOT NULL,
  bin TEXT NOT NULL,
  expiry_month BIGINT NOT NULL,
  expiry_year BIGINT NOT NULL,
  name TEXT,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL,
  deleted_at_ms BIGINT
);
CREATE UNIQUE INDEX payment_methods_one_per_card ON payment_methods (customer_pk, fingerprint);
CREATE INDEX payment_methods_customer ON payment_methods (customer_pk, pk) WHERE deleted_at_ms IS NULL;

-- Recurring schedules. `next_run_date` (YYYY-MM-DD, UTC) is the next date to
-- charge; `cycle_date` the period date being paid (a declined run retries on
-- the following days, the next period counts from the cycle date);
-- `anchor_day` the day of the month the schedule was set to, so a schedule
-- of the 31st runs on each month's last day without drifting to the 28th.
CREATE TABLE recurring_schedules (
  pk IDENTITY_PK,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  customer_pk BIGINT NOT NULL REFERENCES customers(pk),
  payment_method_pk BIGINT NOT NULL REFERENCES payment_methods(pk),
  title TEXT NOT NULL,
  receipt_email TEXT,
  amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
  frequency TEXT NOT NULL CHECK (frequency IN ('daily', 'weekly', 'biweekly', 'monthly', 'bimonthly', 'quarterly', 'biannually', 'annually')),
  next_run_date TEXT NOT NULL,
  cycle_date TEXT NOT NULL,
  anchor_day BIGINT NOT NULL CHECK (anchor_day >= 1 AND anchor_day <= 31),
  num_left BIGINT NOT NULL CHECK (num_left >= 0),
  active BIGINT NOT NULL CHECK (active >= 0 AND active <= 1),
  status TEXT NOT NULL CHECK (status IN ('active', 'declined', 'failed', 'finished')),
  retries BIGINT NOT NULL DEFAULT 0,
  -- A worker claimed the schedule's due run until then (a crashed worker's claim lapses).
  lease_until_ms BIGINT NOT NULL DEFAULT 0,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL,
  deleted_at_ms BIGINT
);
CREATE INDEX recurring_schedules_due ON recurring_schedules (next_run_date) WHERE active = 1 AND deleted_at_ms IS NULL;
CREATE INDEX recurring_schedules_customer ON recurring_schedules (customer_pk, pk) WHERE deleted_at_ms IS NULL;

-- One row per schedule and run date, inserted in the transaction that
-- reserves the run's charge, before the processor is asked: the unique key
-- is what makes each date charged at most once, across workers and crashes.
-- `applied` turns 1 when the charge's outcome has moved the schedule on.
CREATE TABLE schedule_runs (
  schedule_pk BIGINT NOT NULL REFERENCES recurring_schedules(pk),
  run_date TEXT NOT NULL,
  charge_pk BIGINT NOT NULL REFERENCES charges(pk),
  applied BIGINT NOT NULL DEFAULT 0,
  created_at_ms BIGINT NOT NULL,
  PRIMARY KEY (schedule_pk, run_date)
);
CREATE INDEX schedule_runs_unapplied ON schedule_runs (charge_pk) WHERE applied = 0;

-- Which customer, saved card and schedule a charge was made for; and, for a
-- charge made with a nonce, its card number kept for `ref-` charges (sealed
-- under the card-data key; erased when the charge is declined or fails).
ALTER TABLE charges ADD COLUMN customer_pk BIGINT REFERENCES customers(pk);
ALTER TABLE charges ADD COLUMN payment_method_pk BIGINT REFERENCES payment_methods(pk);
ALTER TABLE charges ADD COLUMN schedule_pk BIGINT REFERENCES recurring_schedules(pk);
ALTER TABLE charges ADD COLUMN ref_card_enc BYTES;
CREATE INDEX charges_customer ON charges (customer_pk, pk) WHERE customer_pk IS NOT NULL;
CREATE INDEX charges_schedule ON charges (schedule_pk, pk) WHERE schedule_pk IS NOT NULL;
-- The worker erases reference cards past their retention (flows/payin-cleanup.ts) without scanning every charge.
CREATE INDEX charges_reference_cards ON charges (created_at_ms) WHERE ref_card_enc IS NOT NULL;
