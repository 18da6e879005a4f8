// Saved-card tokens (migration 015, docs/acceptblue-compatibility.md): a
// merchant's card under a random `card_ref`. The number is sealed under the
// card-data key bound to the saving source, as a payment method's is; reads
// name the merchant, so another merchant's token reads as absent.
import type { Tx } from './db.ts';

export interface CardTokenRow {
  card_ref: string;
  merchant_id: string;
  source_id: string;
  card_type: string;
  last4: string;
  bin: string;
  expiry_month: number;
  expiry_year: number;
}

export interface SealedCardToken extends CardTokenRow {
  card_number_enc: Buffer;
  /** The network transaction id of the card's first authorization (migration 023); absent or null when unknown. */
  network_transaction_id?: string | null;
}

const COLUMNS = 'card_ref, merchant_id, source_id, card_type, last4, bin, expiry_month, expiry_year';

function rowOf<T extends CardTokenRow>(row: T): T {
  return { ...row, expiry_month: Number(row.expiry_month), expiry_year: Number(row.expiry_year) };
}

/**
 * Inserts the token; false when its card_ref is taken already (a token
 * re-issued for the card it names: a charge made with `tkn-` and save_card).
 */
export async function insertCardToken(tx: Tx, token: SealedCardToken, nowMs: number): Promise<boolean> {
  const result = await tx.run(
    `INSERT INTO card_tokens (card_ref, merchant_id, source_id, card_number_enc, card_type, last4, bin, expiry_month, expiry_year, created_at_ms, updated_at_ms, network_transaction_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (card_ref) DO NOTHING`,
    [
      token.card_ref,
      token.merchant_id,
      token.source_id,
      token.card_number_enc,
      token.card_type,
      token.last4,
      token.bin,
      token.expiry_month,
      token.expiry_year,
      nowMs,
      nowMs,
      token.network_transaction_id ?? null,
    ],
  );
  return result.changes === 1;
}

/** The merchant's token with its sealed card number, for a charge. */
export async function getSealedCardToken(tx: Tx, merchantId: string, cardRef: string): Promise<SealedCardToken | undefined> {
  const row = await tx.get<SealedCardToken>(
    `SELECT ${COLUMNS}, card_number_enc, network_transaction_id FROM card_tokens WHERE card_ref = ? AND merchant_id = ?`,
    [cardRef, merchantId],
  );
  return row === undefined ? undefined : rowOf(row);
}

/** Sets what is given of the token's expiry; the token as updated, or undefined when it is not the merchant's. */
export async function updateCardTokenExpiry(
  tx: Tx,
  merchantId: string,
  cardRef: string,
  expiry: { expiry_month: number | null; expiry_year: number | null },
  nowMs: number,
): Promise<CardTokenRow | undefined> {
  const row = await tx.get<CardTokenRow>(
    `UPDATE card_tokens SET expiry_month = COALESCE(?, expiry_month), expiry_year = COALESCE(?, expiry_year), updated_at_ms = ?
     WHERE card_ref = ? AND merchant_id = ? RETURNING ${COLUMNS}`,
    [expiry.expiry_month, expiry.expiry_year, nowMs, cardRef, merchantId],
  );
  return row === undefined ? undefined : rowOf(row);
}

/**
 * Issues the token a pending `save_card` charge or verification asked for,
 * from its own sealed copy of the card (read here, before recording its
 * approval erases that copy). Nothing when the token exists already: a
 * `tkn-` charge re-issues the token it was made with (which then takes the
 * approval's network transaction id only if it had none).
 */
export async function issueCardTokenOf(
  tx: Tx,
  table: 'charges' | 'verifications',
  pk: number,
  nowMs: number,
  networkTransactionId: string | null,
): Promise<void> {
  await tx.run(
    `INSERT INTO card_tokens (card_ref, merchant_id, source_id, card_number_enc, card_type, last4, bin, expiry_month, expiry_year, created_at_ms, updated_at_ms, network_transaction_id)
     SELECT save_card_ref, merchant_id, source_id, card_number_enc, card_type, last4, bin, expiry_month, expiry_year, ?, ?, ?
       FROM ${table} WHERE pk = ? AND status = 'pending' AND save_card_ref IS NOT NULL
     ON CONFLICT (card_ref) DO UPDATE SET network_transaction_id = COALESCE(card_tokens.network_transaction_id, excluded.network_transaction_id)`,
    [nowMs, nowMs, networkTransactionId, pk],
  );
}
