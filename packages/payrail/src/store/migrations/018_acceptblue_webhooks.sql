-- accept.blue-shaped webhook endpoints (docs/acceptblue-compatibility.md,
-- behaviour section 16): registered with accept.blue's {webhook_url,
-- description, active}, read back with an integer id and their signing
-- secret, and sent accept.blue's delivery envelope instead of Payrail's
-- events. They live in webhook_endpoints beside Payrail's own endpoints, so
-- deliveries, retries, pauses and disabling are the same rows and rules.
--
-- `format` says which body a delivery carries: 'payrail' (section 11) or
-- 'acceptblue'. `description` is accept.blue's (1 to 255 characters).
-- `number` is the accept.blue id, handed out by webhook_numbers so that
-- concurrent creations on PostgreSQL never take the same one; Payrail's own
-- endpoints have none.
ALTER TABLE webhook_endpoints ADD COLUMN format TEXT NOT NULL DEFAULT 'payrail' CHECK (format IN ('payrail', 'acceptblue'));
ALTER TABLE webhook_endpoints ADD COLUMN description TEXT;
ALTER TABLE webhook_endpoints ADD COLUMN number BIGINT;
CREATE UNIQUE INDEX webhook_endpoints_number ON webhook_endpoints (number) WHERE number IS NOT NULL;
-- accept.blue answers 409 to a second registration of one URL; the index
-- keeps that true when two registrations race.
CREATE UNIQUE INDEX webhook_endpoints_acceptblue_url ON webhook_endpoints (merchant_id, url) WHERE format = 'acceptblue';

-- One row per accept.blue id ever handed out (never reused, also after the
-- endpoint is deleted).
CREATE TABLE webhook_numbers (
  number IDENTITY_PK,
  created_at_ms BIGINT NOT NULL
);
