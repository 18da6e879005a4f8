-- Checks and ACH (behaviour.md section 17). A check charge, refund or
-- credit is a row of `charges` with payment_type 'check': the account number
-- is sealed in card_number_enc like a card number, its last four digits in
-- last4, and card_type, bin and the expiry are empty. Its ACH entry below
-- carries the rest of the account and where the entry is.
ALTER TABLE charges ADD COLUMN payment_type TEXT NOT NULL DEFAULT 'card' CHECK (payment_type IN ('card', 'check'));

CREATE TABLE ach_entries (
  charge_pk BIGINT PRIMARY KEY REFERENCES charges(pk),
  merchant_id TEXT NOT NULL,
  -- debit: money from the account (a check charge); credit: money to it (a refund, an unmatched check credit).
  direction TEXT NOT NULL CHECK (direction IN ('debit', 'credit')),
  amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
  account_name TEXT NOT NULL,
  routing_number TEXT NOT NULL,
  -- As the request wrote it ("Checking" or "checking"): answers echo it (accept.blue integrations compare it case-sensitively).
  account_type TEXT NOT NULL,
  sec_code TEXT NOT NULL CHECK (sec_code IN ('PPD', 'CCD', 'TEL', 'WEB')),
  -- The ACH network connector the entry was submitted to; every later call goes there.
  network TEXT NOT NULL,
  network_ref TEXT,
  state TEXT NOT NULL CHECK (state IN ('submitting', 'pending', 'voiding', 'originated', 'settled', 'returned', 'voided', 'declined', 'failed')),
  submitted_at_ms BIGINT NOT NULL,
  originated_at_ms BIGINT,
  settled_at_ms BIGINT,
  returned_at_ms BIGINT,
  return_code TEXT,
  return_reason TEXT,
  -- Where a returned debit's money was taken back from: ach_pending (before settlement),
  -- available, or ach_returns_due (settled, and the available balance could not cover it).
  returned_from TEXT CHECK (returned_from IS NULL OR returned_from IN ('ach_pending', 'available', 'ach_returns_due')),
  decline_message TEXT,
  -- When the worker next asks the network about the entry; NULL once nothing can change any more.
  next_check_at_ms BIGINT,
  -- A worker asking about the entry holds it until then (a crashed worker's claim lapses).
  lease_until_ms BIGINT NOT NULL DEFAULT 0,
  updated_at_ms BIGINT NOT NULL
);
-- The worker's queue: entries due to be asked about, soonest first.
CREATE INDEX ach_entries_due ON ach_entries (next_check_at_ms) WHERE next_check_at_ms IS NOT NULL;

-- Saved check payment methods (accept.blue's NewCheckPM): the account number
-- is sealed in card_number_enc, its last four digits in last4; card_type,
-- bin and the expiry are empty.
ALTER TABLE payment_methods ADD COLUMN method_type TEXT NOT NULL DEFAULT 'card' CHECK (method_type IN ('card', 'check'));
ALTER TABLE payment_methods ADD COLUMN routing_number TEXT;
ALTER TABLE payment_methods ADD COLUMN account_type TEXT;
ALTER TABLE payment_methods ADD COLUMN sec_code TEXT;

-- The sandbox's ACH clock of each merchant: how far `POST /sandbox/ach/advance` moved it ahead of the service clock.
CREATE TABLE sandbox_ach_clocks (
  merchant_id TEXT PRIMARY KEY REFERENCES merchants(id),
  offset_ms BIGINT NOT NULL CHECK (offset_ms >= 0),
  updated_at_ms BIGINT NOT NULL
);

-- The merchants' ACH accounts (domain/ledger.ts): money of checks not yet
-- settled, the bank side of check payments, and returns the available
-- balance could not cover. None has a floor.
INSERT INTO accounts (id, merchant_id, kind, currency, balance_cents, floor_cents, created_at_ms)
  SELECT id || ':ach_pending', id, 'ach_pending', 'USD', 0, NULL, 0 FROM merchants;
INSERT INTO accounts (id, merchant_id, kind, currency, balance_cents, floor_cents, created_at_ms)
  SELECT id || ':ach_payins', id, 'ach_payins', 'USD', 0, NULL, 0 FROM merchants;
INSERT INTO accounts (id, merchant_id, kind, currency, balance_cents, floor_cents, created_at_ms)
  SELECT id || ':ach_returns_due', id, 'ach_returns_due', 'USD', 0, NULL, 0 FROM merchants;
