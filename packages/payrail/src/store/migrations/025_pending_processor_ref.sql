-- Provider callbacks (behaviour.md section 18) name a card payment by the
-- processor's id of it (Authorize.net's transId, our processor_ref): the
-- callback flow looks up the pending charge that id belongs to. Only pending
-- charges are indexed: a final charge never changes again, so a callback
-- about one has nothing to look up, and the index stays as small as the
-- number of charges under review. Building it reads the table once; on
-- PostgreSQL writes to charges wait meanwhile (migrate during a quiet moment).
CREATE INDEX charges_pending_processor_ref ON charges (processor_ref) WHERE status = 'pending' AND processor_ref IS NOT NULL;
