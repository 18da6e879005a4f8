-- Saved-card tokens (accept.blue's `card_ref`, used as `tkn-<card_ref>`;
-- docs/acceptblue-compatibility.md): a merchant's card kept apart from any
-- customer. The number is sealed under the card-data key bound to the source
-- that saved it, exactly as a payment method's; the security code is never kept.
CREATE TABLE card_tokens (
  card_ref TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  source_id TEXT NOT NULL REFERENCES sources(id),
  card_number_enc BYTES NOT NULL,
  card_type TEXT NOT NULL,
  last4 TEXT NOT NULL,
  bin TEXT NOT NULL,
  expiry_month BIGINT NOT NULL,
  expiry_year BIGINT NOT NULL,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL
);

-- `save_card: true` on a charge or verify: the token to issue should it be
-- approved (`save_card_ref`), and the token issued (`card_ref`, what the
-- answer shows; null unless approved).
ALTER TABLE charges ADD COLUMN save_card_ref TEXT;
ALTER TABLE charges ADD COLUMN card_ref TEXT;
ALTER TABLE verifications ADD COLUMN save_card_ref TEXT;
ALTER TABLE verifications ADD COLUMN card_ref TEXT;
