// Step 2 of a charge (charge.ts): the processor call, outside any
// transaction and bounded by the processor's deadline even when a connector
// hangs. It throws when the processor gave no answer by then: an unknown
// outcome, never a guessed one (charge.ts leaves the charge pending for the
// worker, charge-recovery.ts).
import type { CardType } from '../../domain/cards.ts';
import { type AuthorizationResult, authorizeWithDeadline, type CardProcessor } from '../../providers/card-processor.ts';
import type { ChargeRow } from '../../store/charges.ts';
import type { ChargeCard } from '../../store/payin/card-source.ts';

/** The processor's answer about the reserved charge; throws when it gave none by its deadline. */
export function authorizeCharge(processor: CardProcessor, charge: ChargeRow, card: ChargeCard, amountCents: number): Promise<AuthorizationResult> {
  return authorizeWithDeadline(processor, {
    reference: String(charge.pk),
    amountCents,
    currency: 'USD',
    card: {
      number: card.number,
      cvv: card.cvv,
      expiryMonth: card.expiryMonth,
      expiryYear: card.expiryYear,
      cardType: charge.card_type as CardType,
    },
    billing: { street: card.billing.street, zip: card.billing.zip, country: card.billing.country },
  });
}
