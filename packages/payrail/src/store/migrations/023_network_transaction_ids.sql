-- Stored credentials (the card networks' credential-on-file framework,
-- domain/stored-credential.ts). A card kept for later use is known to the
-- networks by the network transaction id of its first authorization, which
-- every later charge of it names. Recorded from approved answers; null when
-- the processor gave none (and for everything before this migration).
-- A charge's own approval's id, and the flags it was sent with (JSON text,
-- null for a one-off card), so that asking again after a crash sends the same.
ALTER TABLE charges ADD COLUMN network_transaction_id TEXT;
ALTER TABLE charges ADD COLUMN stored_credential TEXT;
-- A verification with save_card keeps the card as such a charge does.
ALTER TABLE verifications ADD COLUMN network_transaction_id TEXT;
-- The kept cards: the first authorization's id, taken from the transaction
-- the card was saved from, or recorded by the first approved charge of it.
ALTER TABLE payment_methods ADD COLUMN network_transaction_id TEXT;
ALTER TABLE card_tokens ADD COLUMN network_transaction_id TEXT;
