-- accept.blue's fields of stored customers, payment methods and recurring
-- schedules (docs/acceptblue-compatibility.md).

-- A customer's other contact fields and its addresses. An address is kept as
-- the JSON object of accept.blue's Address members that were sent (only
-- shown, never searched).
ALTER TABLE customers ADD COLUMN website TEXT;
ALTER TABLE customers ADD COLUMN alternate_phone TEXT;
ALTER TABLE customers ADD COLUMN note TEXT;
ALTER TABLE customers ADD COLUMN billing_info_json TEXT;
ALTER TABLE customers ADD COLUMN shipping_info_json TEXT;

-- The AVS address a payment method was saved with (filled into its charges' AVS check).
ALTER TABLE payment_methods ADD COLUMN avs_address TEXT;
ALTER TABLE payment_methods ADD COLUMN avs_zip TEXT;

-- A duplicate is the same card number with the same expiry: a card saved
-- again with a new expiry is a new method (the Vendure plugin saves the
-- renewed card so). Deleted methods have no fingerprint, so they never conflict.
DROP INDEX payment_methods_one_per_card;
CREATE UNIQUE INDEX payment_methods_one_per_card_expiry ON payment_methods (customer_pk, fingerprint, expiry_month, expiry_year);

-- `prev_run_date`: the latest date a run was made for; `transaction_count`:
-- the runs made (each is one transaction), both moved in the transaction that
-- records the run. `run_source_id`: the source whose key created the
-- schedule with use_this_source_key, whose runs are charged under that
-- source; NULL charges them under the source that saved the card.
ALTER TABLE recurring_schedules ADD COLUMN prev_run_date TEXT;
ALTER TABLE recurring_schedules ADD COLUMN transaction_count BIGINT NOT NULL DEFAULT 0;
ALTER TABLE recurring_schedules ADD COLUMN run_source_id TEXT REFERENCES sources(id);
UPDATE recurring_schedules SET
  prev_run_date = (SELECT MAX(r.run_date) FROM schedule_runs r WHERE r.schedule_pk = recurring_schedules.pk),
  transaction_count = (SELECT COUNT(*) FROM schedule_runs r WHERE r.schedule_pk = recurring_schedules.pk);

-- The schedules of a payment method (GET /payment-methods/:id/recurring-schedules, deletes refused while one is active).
CREATE INDEX recurring_schedules_method ON recurring_schedules (payment_method_pk, pk) WHERE deleted_at_ms IS NULL;
