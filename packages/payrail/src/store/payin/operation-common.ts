// What the card operations after a charge (capture, void, refund) check
// first in their reserving transaction, and how they say no: a refusal names
// its reason with the row data its message needs, and the flows word it
// (the store decides, the flows speak the error catalogue).
import type { ChargeRow } from '../charges.ts';
import { getCharge } from '../charges.ts';
import type { Db, Tx } from '../db.ts';
import { reserveKey } from '../idempotency.ts';
import { getVerification } from '../verifications.ts';

/** Who asks: the merchant, and the source whose credentials were used (Idempotency-Keys are scoped to it). */
export interface OperationCaller {
  readonly merchantId: string;
  readonly sourceId: string;
}

/** The request's Idempotency-Key and the hash of the request it stands for; null when it has none. */
export type OperationKey = { readonly key: string; readonly requestHash: string } | null;

/** Why a capture, void or refund of reference_number is refused, with what its message shows. */
export type OperationRefusal =
  | { readonly reason: 'not_found' }
  | { readonly reason: 'verification' }
  | { readonly reason: 'is_refund' }
  | { readonly reason: 'not_approved'; readonly status: 'declined' | 'failed' | 'pending' }
  | { readonly reason: 'other_operation'; readonly op: string }
  | { readonly reason: 'captured_once'; readonly capturedCents: number }
  | { readonly reason: 'not_capturable'; readonly stage: ChargeRow['stage'] }
  | { readonly reason: 'above_authorized'; readonly authorizedCents: number }
  | { readonly reason: 'authorization_expired' }
  | { readonly reason: 'settled' }
  | { readonly reason: 'expired' }
  | { readonly reason: 'void_refused' }
  | { readonly reason: 'funds_transfers'; readonly linkedCents: number }
  | { readonly reason: 'not_whole'; readonly wholeCents: number }
  | { readonly reason: 'void_below_floor'; readonly heldCents: number }
  | { readonly reason: 'not_settled'; readonly stage: ChargeRow['stage'] }
  | { readonly reason: 'above_refundable'; readonly refundableCents: number; readonly linkedCents: number }
  | { readonly reason: 'refund_below_floor'; readonly amountCents: number }
  // Adjust and queue (accept.blue's /transactions/adjust, /adjust-capture and /queue).
  | { readonly reason: 'adjusted_once' }
  | { readonly reason: 'not_adjustable'; readonly stage: ChargeRow['stage'] }
  | { readonly reason: 'above_authorized_adjust'; readonly authorizedCents: number }
  | { readonly reason: 'captured_amount'; readonly capturedCents: number }
  | { readonly reason: 'changed' }
  | { readonly reason: 'not_queueable'; readonly why: 'captured' | 'settled' | 'voided' | 'expired' | 'not_approved' | 'not_a_charge' };

export type Refused = { readonly kind: 'refused'; readonly refusal: OperationRefusal };

/** The transaction named by reference_number: a charge or refund of the merchant, or why there is none to act on. */
export type Named = { readonly kind: 'charge'; readonly row: ChargeRow } | Refused;

/** In a transaction: the charge or refund `pk` of the merchant; a verification of the merchant is named as one (it moved no money). */
export async function findNamed(tx: Tx, pk: number, merchantId: string): Promise<Named> {
  const row = await getCharge(tx, pk, merchantId);
  if (row !== undefined) return { kind: 'charge', row };
  const verification = (await getVerification(tx, pk, merchantId)) !== undefined;
  return { kind: 'refused', refusal: { reason: verification ? 'verification' : 'not_found' } };
}

/** The charge or refund `pk` of the merchant as committed, or why there is none (findNamed). */
export async function namedTransaction(db: Db, input: { pk: number; merchantId: string }): Promise<Named> {
  return db.read((tx) => findNamed(tx, input.pk, input.merchantId));
}

/** The charge or refund `pk` of the merchant as committed; undefined when there is none. */
export async function chargeOfMerchant(db: Db, input: { pk: number; merchantId: string }): Promise<ChargeRow | undefined> {
  return db.read((tx) => getCharge(tx, input.pk, input.merchantId));
}

/** Why `row` is not an approved charge (a capture, void or refund acts on nothing else); null when it is one. */
export function unapprovedRefusal(row: ChargeRow): OperationRefusal | null {
  if (row.kind === 'refund') return { reason: 'is_refund' };
  if (row.status === 'declined' || row.status === 'failed' || row.status === 'pending') return { reason: 'not_approved', status: row.status };
  return null;
}

/** Reserves the key; false when a request with this key was made before (it is replayed). */
export async function keyFree(tx: Tx, caller: OperationCaller, idem: OperationKey, nowMs: number, keyTtlMs: number): Promise<boolean> {
  if (idem === null) return true;
  return reserveKey(tx, { sourceId: caller.sourceId, idemKey: idem.key, requestHash: idem.requestHash, nowMs, staleAtOrBeforeMs: nowMs - keyTtlMs });
}
