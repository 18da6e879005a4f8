-- Adjustments of card transactions (accept.blue's /transactions/adjust and
-- /adjust-capture; docs/acceptblue-compatibility.md). accept.blue adjusts a
-- transaction once: the charge is the key, so a second, different adjust
-- can never be recorded, however two requests interleave. The request's
-- hash makes the same adjust asked again (a retry, or adjust-capture after
-- a crash before its capture) answer as it stands instead of a refusal.
-- The authorized amount before the adjust is kept: the processor's
-- authorization still holds it until the capture takes the new total.
CREATE TABLE charge_adjustments (
  charge_pk BIGINT PRIMARY KEY REFERENCES charges(pk),
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  request_hash TEXT NOT NULL,
  previous_cents BIGINT NOT NULL CHECK (previous_cents > 0),
  amount_cents BIGINT NOT NULL CHECK (amount_cents > 0 AND amount_cents <= previous_cents),
  created_at_ms BIGINT NOT NULL
);
