// How a refused nonce is answered (docs/api-decisions.md section 8): unknown,
// foreign, used and expired nonces alike with invalid_nonce, an expiry other
// than the tokenized card's with invalid_card. The store takes the nonce
// (store/payin/nonce-take.ts) and answers why it could not.
import { hashNonce } from '../../domain/nonce.ts';
import { fail } from '../../errors.ts';
import type { Txn } from '../../store/db.ts';
import type { NonceRow } from '../../store/nonces.ts';
import { type NonceRefusal, takeNonceIn } from '../../store/payin/nonce-take.ts';

export function failNonce(refusal: NonceRefusal): never {
  switch (refusal.reason) {
    case 'nonce_unknown':
      return fail('invalid_nonce', 'source is not a valid nonce of this payin source');
    case 'nonce_used':
      return fail('invalid_nonce', 'source nonce has already been used; tokenize the card again');
    case 'nonce_expired':
      return fail('invalid_nonce', 'source nonce has expired; tokenize the card again');
    case 'nonce_expiry_mismatch':
      return fail('invalid_card', 'expiry_month/expiry_year do not match the expiry the card was tokenized with');
  }
}

/**
 * Takes the nonce in the caller's transaction, failing as the API answers.
 * Kept for the vault's saved-card create until it submits a store command
 * that calls takeNonceIn (store/payin/nonce-take.ts) and maps its refusal
 * with failNonce.
 */
export async function takeNonce(
  tx: Txn,
  source: { sourceId: string; nonce: string; expiryMonth: number; expiryYear: number },
  nowMs: number,
): Promise<NonceRow> {
  const claim = { sourceId: source.sourceId, nonceHash: hashNonce(source.nonce), expiryMonth: source.expiryMonth, expiryYear: source.expiryYear };
  const taken = await takeNonceIn(tx, claim, nowMs);
  if ('kind' in taken) failNonce(taken);
  return taken;
}
