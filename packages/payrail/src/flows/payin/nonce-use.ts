// Taking a nonce, for a charge (charge.ts) or a zero-amount card check
// (verify.ts), by the rules of docs/api-decisions.md section 8:
// unknown, foreign, used and expired nonces are refused alike
// with invalid_nonce, the expiry must match the tokenized card's (checked
// before the nonce is consumed, so a corrected request can still use it), and
// consuming it is one conditional statement, so it is used at most once.
import { hashNonce } from '../../domain/nonce.ts';
import { fail } from '../../errors.ts';
import type { Txn } from '../../store/db.ts';
import { consumeNonce, getNonce, type NonceRow } from '../../store/nonces.ts';

export async function takeNonce(
  tx: Txn,
  source: { sourceId: string; nonce: string; expiryMonth: number; expiryYear: number },
  nowMs: number,
): Promise<NonceRow> {
  const nonceHash = hashNonce(source.nonce);
  const nonce = await getNonce(tx, nonceHash);
  if (nonce === undefined || nonce.source_id !== source.sourceId) fail('invalid_nonce', 'source is not a valid nonce of this payin source');
  if (nonce.used_at_ms !== null) fail('invalid_nonce', 'source nonce has already been used; tokenize the card again');
  if (nonce.expires_at_ms <= nowMs) fail('invalid_nonce', 'source nonce has expired; tokenize the card again');
  if (nonce.expiry_month !== source.expiryMonth || nonce.expiry_year !== source.expiryYear) {
    fail('invalid_card', 'expiry_month/expiry_year do not match the expiry the card was tokenized with');
  }
  if (!(await consumeNonce(tx, nonceHash, source.sourceId, nowMs))) fail('invalid_nonce', 'source nonce has already been used; tokenize the card again');
  return nonce;
}
