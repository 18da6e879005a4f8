-- How long an approved charge keeps the sealed copy of its card that later
-- `ref-<reference number>` charges use (docs/api-decisions.md section 15):
-- until ref_card_until_ms, set when the charge is made. A charge whose
-- merchant asked to keep the card (save_card, a saved-card token, or the
-- merchant's keeps_reference_cards setting) keeps it 13 months; any other
-- nonce charge 24 hours, long enough for the shop plugins that save the card
-- of a charge they just made. A void or an expired authorization erases it at
-- once, as a decline or a failure does.
ALTER TABLE merchants ADD COLUMN keeps_reference_cards BIGINT NOT NULL DEFAULT 0;
ALTER TABLE charges ADD COLUMN ref_card_until_ms BIGINT;
-- Copies kept before this rule: voided and expired authorizations' erased now,
-- the rest given the window the rule gives (so most are erased by the worker's next round).
UPDATE charges SET ref_card_enc = NULL WHERE ref_card_enc IS NOT NULL AND (status IN ('declined', 'failed') OR stage IN ('voided', 'expired'));
UPDATE charges SET ref_card_until_ms = created_at_ms + CASE WHEN save_card_ref IS NOT NULL THEN 34214400000 ELSE 86400000 END WHERE ref_card_enc IS NOT NULL;
-- The worker erases copies past their time without scanning every charge.
DROP INDEX charges_reference_cards;
CREATE INDEX charges_reference_cards_until ON charges (ref_card_until_ms) WHERE ref_card_enc IS NOT NULL;
