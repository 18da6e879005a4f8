// Why a gatewayId cannot pay for a transfer (docs/api-decisions.md section 7),
// in words the merchant can act on: no such card payin (another merchant's
// reads exactly like an unknown one, docs/api-decisions.md section 2), not
// approved, or too little of it left unlinked. (A gatewayId that is not
// a reference number at all is refused by validate.ts.) Check asks before
// quoting; execute asks only after its conditional link was refused, to word
// the refusal: the link itself never depends on this read.
import { formatCents } from '../../domain/money.ts';
import type { GatewayChargeFacts } from '../../store/transfers.ts';
import type { GatewayAttribute } from './validate.ts';

/** What a refusal says about the payin a transfer names. */
export interface NamedPayin {
  readonly chargePk: number;
  /** The attribute that named it (gatewayId or approvelyId), as the caller sent it. */
  readonly attribute: GatewayAttribute;
}

/** The refusal text for linking `amountCents` of the named charge for `merchantId`, or null when nothing stands in the way. */
export function gatewayRefusal(payin: NamedPayin, facts: GatewayChargeFacts | undefined, merchantId: string, amountCents: number): string | null {
  const named = `attribute ${payin.attribute} ${payin.chargePk}`;
  if (facts === undefined || facts.merchant_id !== merchantId) return `${named} names no card payin`;
  // A check's money reaches the merchant days later and may still be returned: only card payins fund transfers.
  if (facts.status === 'check') return `${named} names a check (ACH) payment; only card payins can fund a transfer`;
  if (facts.status !== 'approved') return `${named} names a card payin that is ${facts.status}, not approved`;
  if (facts.unlinked_cents < amountCents) {
    return `${named} has ${formatCents(facts.unlinked_cents)} not yet linked to transfers, less than the amount ${formatCents(amountCents)}`;
  }
  return null;
}

/** When the link was refused but the facts read afterwards show no reason (they changed in between). */
export function gatewayRaceRefusal(payin: NamedPayin): string {
  return `attribute ${payin.attribute} ${payin.chargePk}: the card payin changed while this transfer was being linked; send it again`;
}
