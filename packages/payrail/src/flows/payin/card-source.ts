// How a charge's source that yields no card is answered (docs/api-decisions.md
// sections 8 and 15): unknown and other merchants' methods and references
// read alike, not_found. The store takes the card (store/payin/card-source.ts).
import { fail } from '../../errors.ts';
import type { CardRefusal } from '../../store/payin/card-source.ts';
import { failNonce } from './nonce-use.ts';

export type { ChargeCard } from '../../store/payin/card-source.ts';

export function failCardSource(refusal: CardRefusal): never {
  switch (refusal.reason) {
    case 'method_not_found': {
      const named = refusal.viaReferencePk === null ? `payment method ${refusal.methodPk}` : `reference ${refusal.viaReferencePk}`;
      return fail('not_found', `${named} not found`);
    }
    case 'reference_not_found':
      return fail('not_found', `reference ${refusal.chargePk} is not an approved transaction of this merchant`);
    case 'reference_without_card':
      return fail(
        'reference_card_not_kept',
        `reference ${refusal.chargePk} no longer keeps its card: a void erases it, and a charge keeps it 24 hours unless saved (save_card)`,
      );
    case 'token_not_found':
      // As an unknown payment method reads: another merchant's token is not told apart.
      return fail('not_found', `saved card tkn-${refusal.cardRef} not found`);
    case 'card_expired':
      return fail('invalid_card', refusal.problem);
    default:
      return failNonce(refusal);
  }
}
