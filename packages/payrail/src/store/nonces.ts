// Nonces from card tokenization: one row per nonce, looked up by a SHA-256
// of the nonce (the nonce itself is never stored). Card number and security
// code are sealed under a key derived from the nonce (src/crypto/card-cipher.ts);
// both are erased in the same statement that marks the nonce used (the
// charge reads them first and keeps its own copy of the number).
import type { Tx } from './db.ts';

export interface NonceRow {
  source_id: string;
  merchant_id: string;
  card_number_enc: Buffer;
  cvv_enc: Buffer | null;
  card_type: string;
  last4: string;
  bin: string;
  expiry_month: number;
  expiry_year: number;
  expires_at_ms: number;
  used_at_ms: number | null;
}

export async function insertNonce(tx: Tx, row: Omit<NonceRow, 'used_at_ms'> & { nonce_hash: string; created_at_ms: number }): Promise<void> {
  await tx.run(
    `INSERT INTO nonces (nonce_hash, source_id, merchant_id, card_number_enc, cvv_enc, card_type, last4, bin, expiry_month, expiry_year, created_at_ms, expires_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      row.nonce_hash,
      row.source_id,
      row.merchant_id,
      row.card_number_enc,
      row.cvv_enc,
      row.card_type,
      row.last4,
      row.bin,
      row.expiry_month,
      row.expiry_year,
      row.created_at_ms,
      row.expires_at_ms,
    ],
  );
}

export async function getNonce(tx: Tx, nonceHash: string): Promise<NonceRow | undefined> {
  return tx.get<NonceRow>(
    `SELECT source_id, merchant_id, card_number_enc, cvv_enc, card_type, last4, bin, expiry_month, expiry_year, expires_at_ms, used_at_ms
     FROM nonces WHERE nonce_hash = ?`,
    [nonceHash],
  );
}

/** What a used nonce keeps in place of its sealed card number. */
const ERASED = Buffer.alloc(0);

/**
 * Marks the nonce used and erases its card data, only if it is still
 * unused, unexpired and bound to this source. The database decides: of any
 * number of concurrent attempts exactly one sees `true`.
 */
export async function consumeNonce(tx: Tx, nonceHash: string, sourceId: string, nowMs: number): Promise<boolean> {
  const result = await tx.run(
    'UPDATE nonces SET used_at_ms = ?, cvv_enc = NULL, card_number_enc = ? WHERE nonce_hash = ? AND used_at_ms IS NULL AND expires_at_ms > ? AND source_id = ?',
    [nowMs, ERASED, nonceHash, nowMs, sourceId],
  );
  return result.changes === 1;
}

export async function hasExpiredNonces(tx: Tx, nowMs: number): Promise<boolean> {
  return (await tx.get('SELECT 1 AS one FROM nonces WHERE expires_at_ms <= ? LIMIT 1', [nowMs])) !== undefined;
}

/** Deletes at most `limit` expired nonces (used or not), with their sealed card data. */
export async function pruneExpiredNonces(tx: Tx, nowMs: number, limit: number): Promise<number> {
  const result = await tx.run(
    'DELETE FROM nonces WHERE nonce_hash IN (SELECT nonce_hash FROM nonces WHERE expires_at_ms <= ? ORDER BY expires_at_ms LIMIT ?)',
    [nowMs, limit],
  );
  return result.changes;
}
