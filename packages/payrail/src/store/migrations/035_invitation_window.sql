-- A merchant's invitations of the last 24 hours are counted before each new
-- one (domain/invitation-limits.ts): by purpose, merchant and time.
CREATE INDEX link_tokens_subject_created ON link_tokens (purpose, subject, created_at_ms);
