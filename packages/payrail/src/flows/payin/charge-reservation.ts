// Step 1 of a charge (charge.ts): the reservation the store makes in one
// write transaction (store/payin/charge-reservation.ts). The flow hands it
// what the store cannot know: the card keys, and the pending charge to insert
// for the card it takes (sealed here).
import type { CardCipher } from '../../crypto/card-cipher.ts';
import type { Clock } from '../../domain/clock.ts';
import { newCardRef } from '../../domain/card-refs.ts';
import { referenceCardUntilMs } from '../../domain/reference-card-retention.ts';
import { credentialOnFileText } from '../../domain/stored-credential.ts';
import { hashNonce } from '../../domain/nonce.ts';
import { CARD_PROCESSOR_TIMEOUT_MS } from '../../providers/card-processor.ts';
import type { Service } from '../../service.ts';
import type { ChargeRow, NewCharge } from '../../store/charges.ts';
import type { CardSourceRequest, ChargeCard } from '../../store/payin/card-source.ts';
import { type PendingChargeOf, reserveCharge as reserveChargeCommand } from '../../store/payin/charge-reservation.ts';
import { IDEMPOTENCY_KEY_TTL_MS, type KeyedRequest } from '../common/idempotency-replay.ts';
import { failCardSource } from './card-source.ts';
import { chargeCredentialOf } from './charge-authorization.ts';
import { billingOf, type ChargeRequest, type Payer, sourceOf, storedRequest } from './charge-request.ts';

/** When the worker asks about a charge whose request never recorded an answer: after the request surely gave up. */
export const CHARGE_RECOVERY_AFTER_MS = 2 * CARD_PROCESSOR_TIMEOUT_MS;

export type Reservation = { kind: 'taken' } | { kind: 'reserved'; charge: ChargeRow; card: ChargeCard };

/** Step 1: one write transaction. Exported for the crash-recovery tests, which stop right after it. */
export async function reserveCharge(
  deps: { readonly db: Service['db']; readonly clock: Clock; readonly cipher: CardCipher },
  payer: Payer,
  request: ChargeRequest,
  amountCents: number,
  idem: KeyedRequest | null,
  /** The part of amountCents that is the merchant's surcharge. */
  surchargeCents = 0,
): Promise<Reservation> {
  const reserved = await reserveChargeCommand(deps.db, {
    clock: deps.clock,
    key: idem === null ? null : { sourceId: payer.sourceId, idemKey: idem.key, requestHash: idem.requestHash, ttlMs: IDEMPOTENCY_KEY_TTL_MS },
    payer,
    source: cardSourceOf(request),
    customerPk: request.customer?.customer_id ?? null,
    keys: deps.cipher,
    pendingOf: pendingChargeOf(deps.cipher, payer, request, amountCents, { idemKey: idem?.key ?? null, schedulePk: null, surchargeCents }),
  });
  if (reserved.kind === 'refused') failCardSource(reserved);
  return reserved;
}

/** What the store needs to take the card of the request's source. */
export function cardSourceOf(request: ChargeRequest): CardSourceRequest {
  const source = sourceOf(request);
  return {
    source,
    nonceHash: source.kind === 'nonce' ? hashNonce(source.nonce) : null,
    expiryMonth: request.expiry_month,
    expiryYear: request.expiry_year,
    // A nonce's card has no address of its own: an accept.blue caller's charge without one keeps none.
    billing: source.kind === 'nonce' ? storedRequest(request).billing_info : billingOf(request),
  };
}

/**
 * The saved-card token an approval of this request issues: with save_card, a
 * new one for a nonce's card (a card sent as such is one), the token itself
 * for a `tkn-` source; none for `pm-` and `ref-` sources, as accept.blue does.
 */
function saveCardRefOf(request: ChargeRequest, card: ChargeCard): string | null {
  if (request.save_card !== true) return null;
  if (card.cardRef !== null) return card.cardRef;
  return sourceOf(request).kind === 'nonce' ? newCardRef() : null;
}

/** The pending charge of a request for the card the store took. */
export function pendingChargeOf(
  cipher: CardCipher,
  payer: Payer,
  request: ChargeRequest,
  amountCents: number,
  options: { idemKey: string | null; schedulePk: number | null; surchargeCents?: number },
): PendingChargeOf {
  return (card, nowMs, settings): NewCharge => {
    // The charge's own copy of the card number, for recovery should this
    // request die before the processor answers: sealed under the card-data key
    // and erased once the charge is final.
    const sealedNumber = cipher.seal(card.number, 'card_number', payer.sourceId);
    const refCardUntilMs = referenceCardUntilMs(
      {
        keepsCopy: card.keepForReference,
        // save_card, or the charge of a saved-card token: the card is on file at the merchant's asking.
        cardOnFile: request.save_card === true || card.cardRef !== null,
        merchantKeepsReferenceCards: settings.keepsReferenceCards,
      },
      nowMs,
    );
    return {
      merchant_id: payer.merchantId,
      source_id: payer.sourceId,
      amount_cents: amountCents,
      card_type: card.cardType,
      last4: card.last4,
      bin: card.bin,
      expiry_month: card.expiryMonth,
      expiry_year: card.expiryYear,
      card_number_enc: sealedNumber,
      request_json: JSON.stringify({
        ...storedRequest(request, card.billing, {
          wireDialect: payer.wireDialect ?? 'spec',
          // Only then may the processor authorize less than asked for (charge-outcome.ts).
          requestedCents: request.transaction_flags?.allow_partial_approval === true ? amountCents : undefined,
        }),
        surcharge_cents: options.surchargeCents ?? 0,
      }),
      idem_key: options.idemKey,
      recover_at_ms: nowMs + CHARGE_RECOVERY_AFTER_MS,
      created_at_ms: nowMs,
      auto_capture: request.capture === false ? 0 : 1,
      customer_pk: card.customerPk,
      payment_method_pk: card.methodPk,
      schedule_pk: options.schedulePk,
      // A nonce's card is kept (sealed) for later `ref-` charges while the
      // charge stays approved and not voided, for 13 months when the merchant
      // asked to keep it, else 24 hours (domain/reference-card-retention.ts); a
      // saved card is reached through its method, so deleting the method leaves
      // no copy behind (docs/api-decisions.md section 15).
      // The same sealed bytes as the recovery copy: one seal, and each column is
      // erased on its own schedule (an identical value tells nothing more).
      ref_card_enc: refCardUntilMs === null ? null : sealedNumber,
      ref_card_until_ms: refCardUntilMs,
      save_card_ref: saveCardRefOf(request, card),
      // Kept so that asking again after a crash sends the flags the first request sent.
      stored_credential: credentialOnFileText(chargeCredentialOf(request, card, options.schedulePk !== null)),
    };
  };
}
