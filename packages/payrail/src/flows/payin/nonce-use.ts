import { fail } from '../../errors.ts';
import type { NonceRefusal } from '../../store/payin/nonce-take.ts';

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
