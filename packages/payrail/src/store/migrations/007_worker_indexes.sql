-- Indexes for the worker's hot path.
--
-- Automatic reconciliation looks for transfers held for reconciliation on
-- every worker round; without an index that was a scan of every transfer.
-- The predicate is the waiting condition of store/transfers.ts
-- (waitingForSql), term for term, so both stores use the index; keyed by pk,
-- the order the job reads them in.
CREATE INDEX transfers_waiting_reconciliation ON transfers (pk)
  WHERE final = 0 AND state = 0 AND substate = 9 AND waiting_for = 'reconciliation';

-- Postings are written on every money movement and read only whole (the
-- verifier groups every posting by account anyway), so these two indexes
-- cost every write and served no read.
DROP INDEX postings_debit;
DROP INDEX postings_credit;
