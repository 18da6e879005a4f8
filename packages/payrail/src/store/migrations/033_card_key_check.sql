-- A check value per card-data key (docs/security.md, card-data keys): an
-- HMAC-SHA256 of a fixed label under an HKDF subkey of the key, truncated
-- (crypto/key-ring.ts keyCheckValue). It shows whether a key a process holds
-- is the key this store recorded (a changed PAYRAIL_CARD_KEY, or a sandbox
-- key file of another store), and says nothing that helps recover the key.
-- Rows recorded before it get theirs at the next load of the key ring.
ALTER TABLE card_data_keys ADD COLUMN key_check TEXT;
