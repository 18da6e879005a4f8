-- Two indexes of charges hold only the rows they are for.
--
-- charges_parent (a refund's charge) and charges_batch (a captured
-- transaction's settlement batch) indexed every charge, NULL included: each
-- new charge wrote an entry into both, and a charge's batch entry was
-- rewritten when it joined a batch. Every query through them names a value
-- (parent_pk = ?, batch_id = ? or = b.id), which both SQLite and PostgreSQL
-- take to imply IS NOT NULL, so partial indexes serve the same plans: a
-- charge that is not a refund no longer touches charges_parent, and one
-- that never joins a batch (an authorization, a decline) not charges_batch.
-- Building them reads the table once; on PostgreSQL writes to charges wait
-- meanwhile (a large table: migrate during a quiet moment).
DROP INDEX charges_parent;
CREATE INDEX charges_parent ON charges (parent_pk) WHERE parent_pk IS NOT NULL;
DROP INDEX charges_batch;
CREATE INDEX charges_batch ON charges (batch_id) WHERE batch_id IS NOT NULL;
