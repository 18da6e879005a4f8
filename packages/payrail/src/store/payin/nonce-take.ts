// Taking a nonce inside a command's transaction (docs/api-decisions.md
// section 8): unknown, foreign, used and expired nonces are refused alike,
// the expiry must match the tokenized card's (checked before the nonce is
// consumed, so a corrected request can still use it), and consuming it is
// one conditional statement, so it is used at most once. A refusal is
// answered, not thrown: the calling command rolls back (Refusal) and the
// flow words it.
import type { Tx } from '../db.ts';
import { consumeNonce, getNonce, type NonceRow } from '../nonces.ts';

export type NonceRefusal = { readonly kind: 'refused'; readonly reason: 'nonce_unknown' | 'nonce_used' | 'nonce_expired' | 'nonce_expiry_mismatch' };

export interface NonceClaim {
  readonly sourceId: string;
  /** The nonce's hash, computed by the caller (only hashes are stored). */
  readonly nonceHash: string;
  readonly expiryMonth: number;
  readonly expiryYear: number;
}

const refused = (reason: NonceRefusal['reason']): NonceRefusal => ({ kind: 'refused', reason });

/** Reads and consumes the nonce (the same two statements as ever, in order); its row, or why not. */
export async function takeNonceIn(tx: Tx, claim: NonceClaim, nowMs: number): Promise<NonceRow | NonceRefusal> {
  const nonce = await getNonce(tx, claim.nonceHash);
  if (nonce === undefined || nonce.source_id !== claim.sourceId) return refused('nonce_unknown');
  if (nonce.used_at_ms !== null) return refused('nonce_used');
  if (nonce.expires_at_ms <= nowMs) return refused('nonce_expired');
  if (nonce.expiry_month !== claim.expiryMonth || nonce.expiry_year !== claim.expiryYear) return refused('nonce_expiry_mismatch');
  if (!(await consumeNonce(tx, claim.nonceHash, claim.sourceId, nowMs))) return refused('nonce_used');
  return nonce;
}
