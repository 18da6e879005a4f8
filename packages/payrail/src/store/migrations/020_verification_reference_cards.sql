-- An approved verification's card, for later `ref-<reference number>` charges
-- (accept.blue: verify, then charge `ref-` of its reference_number). Sealed
-- under the card-data key like a charge's ref_card_enc; erased when the
-- verification is declined or fails, and after the same retention.
ALTER TABLE verifications ADD COLUMN ref_card_enc BYTES;
-- The worker erases reference cards past their retention without scanning every verification.
CREATE INDEX verifications_reference_cards ON verifications (created_at_ms) WHERE ref_card_enc IS NOT NULL;
