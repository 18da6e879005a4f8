// Step 2 of a charge (charge.ts): the processor call, outside any
// transaction and bounded by the processor's deadline even when a connector
// hangs. It throws when the processor gave no answer by then: an unknown
// outcome, never a guessed one (charge.ts leaves the charge pending for the
// worker, charge-recovery.ts).
import type { CardType } from '../../domain/cards.ts';
import type { ProviderKeys } from '../../domain/provider-keys.ts';
import { type CredentialOnFile, credentialOnFileOf } from '../../domain/stored-credential.ts';
import { type AuthorizationResult, authorizeWithDeadline, type CardProcessor } from '../../providers/card-processor.ts';
import type { ChargeRow } from '../../store/charges.ts';
import type { Billing, ChargeCard } from '../../store/payin/card-source.ts';
import type { StoredChargeRequest } from './charge-answers.ts';
import { type ChargeRequest, sourceOf } from './charge-request.ts';
import { chargeReference } from '../common/provider-references.ts';

/**
 * What the processor is told besides the card, from what the charge kept of
 * its request: the address to check (accept.blue's avs_address and avs_zip
 * win over the billing address) and whether it may approve less.
 */
export function authorizationTermsOf(
  requestJson: string,
  billing: Billing,
): { billing: { street: string; zip: string; country: string }; allowPartialApproval: boolean } {
  const request = JSON.parse(requestJson) as StoredChargeRequest;
  return {
    billing: { street: request.avs_address ?? billing.street, zip: request.avs_zip ?? billing.zip, country: billing.country },
    allowPartialApproval: request.transaction_flags?.allow_partial_approval === true,
  };
}

/**
 * The credential-on-file flags of a charge of `request` with the card its
 * source gave (domain/stored-credential.ts decides): computed when the
 * charge is reserved (and kept with it, so recovery sends the same) and for
 * its first authorization.
 */
export function chargeCredentialOf(request: Pick<ChargeRequest, 'source' | 'save_card'>, card: ChargeCard, scheduleRun: boolean): CredentialOnFile | null {
  return credentialOnFileOf({
    source: sourceOf(request).kind,
    saveCard: request.save_card === true,
    scheduleRun,
    networkTransactionId: card.networkTransactionId,
  });
}

/** The processor's answer about the reserved charge; throws when it gave none by its deadline. */
export function authorizeCharge(
  deps: { readonly processor: CardProcessor; readonly providerKeys: ProviderKeys },
  charge: ChargeRow,
  card: ChargeCard,
  amountCents: number,
  credential: CredentialOnFile | null,
): Promise<AuthorizationResult> {
  return authorizeWithDeadline(deps.processor, {
    reference: chargeReference(deps.providerKeys, charge.pk),
    amountCents,
    currency: 'USD',
    card: {
      number: card.number,
      cvv: card.cvv,
      expiryMonth: card.expiryMonth,
      expiryYear: card.expiryYear,
      cardType: charge.card_type as CardType,
    },
    ...authorizationTermsOf(charge.request_json, card.billing),
    capture: charge.auto_capture === 1,
    ...(credential === null ? {} : { storedCredential: credential }),
  });
}
