-- Which payout connector a transfer went to (behaviour.md section 18: each
-- corridor names its own). Written with the first submission's outcome, so
-- polls and resubmissions keep asking the network that has the payout even
-- if the corridors file later names another one. Null until then, and for
-- transfers submitted before this migration (they went to the deployment's
-- PAYRAIL_PAYOUT_NETWORK).
ALTER TABLE transfers ADD COLUMN payout_connector TEXT;
