-- Reversals of completed payouts (behaviour.md section 18): a payout network
-- may take back a payout it had completed. The transfer stays final (60); a
-- reversal is reported (by the network's callback, or by an operator who
-- learned of it from the network), then confirmed by an operator (the
-- merchant is credited: paid_out -> available) or rejected (no money moves).
-- One reversal per transfer: its key is the transfer's.
CREATE TABLE transfer_reversals (
  transfer_pk BIGINT PRIMARY KEY,
  merchant_id TEXT NOT NULL,
  transfer_id TEXT NOT NULL,
  amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
  source TEXT NOT NULL CHECK (source IN ('network', 'operator')),
  -- The network's reason (its code and text); an operator's report carries its reason as the text.
  network_error_code TEXT NOT NULL,
  network_error_text TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('reported', 'confirmed', 'rejected')),
  reported_at_ms BIGINT NOT NULL,
  -- The connector (network:<name>) or the operator (<actor kind>:<who>) that reported it.
  reported_by TEXT NOT NULL,
  decided_at_ms BIGINT,
  decided_by TEXT,
  decision_note TEXT
);
-- The operator's queue: reversals awaiting a decision, oldest first.
CREATE INDEX transfer_reversals_reported ON transfer_reversals (reported_at_ms) WHERE state = 'reported';

-- What the status endpoint shows of a reversal ('reported' or 'confirmed';
-- null: none, or rejected), kept on the transfer by the reversal commands so
-- the status read stays one row of one table.
ALTER TABLE transfers ADD COLUMN reversal TEXT;

-- A payout callback that carries only the network's reference of a payout
-- finds its transfer by it. Sparse: only submitted transfers have one, and a
-- completed one must still be found (its payout may be reversed later).
CREATE INDEX transfers_provider_ref ON transfers (provider_ref) WHERE provider_ref IS NOT NULL;
