-- accept.blue-format webhook endpoints keep the list of event types they
-- were registered with (domain/acceptblue-webhooks.ts ACCEPTBLUE_EVENT_TYPES
-- at the time). Checks add three: a check's status at the bank, sent as
-- accept.blue's type "status" with subType originated, settled or returned.
-- Endpoints registered before are given them, so they hear of their checks
-- as new ones do. An empty list means every type and stays as it is.
UPDATE webhook_endpoints
SET event_types = event_types || 'charge.originated charge.settled charge.returned '
WHERE format = 'acceptblue' AND event_types <> '' AND event_types NOT LIKE '% charge.originated %';
