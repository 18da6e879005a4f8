-- The transaction lists' settlement-time filters (accept.blue's
-- date_field=settled_at and settled_date, store/transactions.ts): a merchant's
-- charges by when they settled. Sparse: only settled rows carry the time.
CREATE INDEX charges_merchant_settled ON charges (merchant_id, settled_at_ms) WHERE settled_at_ms IS NOT NULL;
