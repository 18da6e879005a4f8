-- Which payout connector pays a transfer (behaviour.md section 18: each
-- corridor names its own). Written at execute, so every submission,
-- resubmission and poll goes to one network even if the corridors file
-- later names another (a resubmission elsewhere could pay twice). Null for
-- transfers made before this migration: those already sent went to the
-- deployment's PAYRAIL_PAYOUT_NETWORK (flows/transfers/networks.ts).
ALTER TABLE transfers ADD COLUMN payout_connector TEXT;
