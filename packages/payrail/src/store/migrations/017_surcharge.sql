-- A merchant's surcharge per payment type (domain/surcharge.ts): a row per
-- type that has one; no row is no surcharge. A percentage is kept exactly in
-- thousandths of a percent (3.5 % is 3500), a fixed amount in cents; each row
-- has exactly the column of its kind.
CREATE TABLE merchant_surcharges (
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  payment_type TEXT NOT NULL CHECK (payment_type IN ('card', 'check')),
  kind TEXT NOT NULL CHECK (kind IN ('percent', 'currency')),
  percent_thousandths BIGINT CHECK (percent_thousandths > 0 AND percent_thousandths <= 10000),
  amount_cents BIGINT CHECK (amount_cents > 0 AND amount_cents <= 10000),
  updated_at_ms BIGINT NOT NULL,
  PRIMARY KEY (merchant_id, payment_type),
  CHECK ((kind = 'percent' AND percent_thousandths IS NOT NULL AND amount_cents IS NULL) OR (kind = 'currency' AND amount_cents IS NOT NULL AND percent_thousandths IS NULL))
);
