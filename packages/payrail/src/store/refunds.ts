// Refunds (docs/api-decisions.md sections 10 and 14): each is a row of the
// charges table of kind 'refund' with its own reference number, naming the
// refunded charge in parent_pk. Its amount is reserved on the parent by one
// conditional UPDATE (captured - refunded - linked must cover it), so two
// concurrent refunds can never take more than the refundable amount, and a
// transfer link racing a refund is decided by the same row.
import { CHARGE_COLUMNS, type ChargeRow, changeCharge, chargeRowOf, claimDueOfKind, getChargeHoldingKey } from './charges.ts';
import type { Tx } from './db.ts';
import type { HeldKey } from './idempotency.ts';
import { byKey } from './by-key.ts';

/** Reserves `amountCents` of a settled charge for a refund; false when it is not settled or not that much is refundable. */
export async function reserveRefundCents(tx: Tx, parentPk: number, merchantId: string, amountCents: number, nowMs: number): Promise<boolean> {
  const result = await tx.run(
    `UPDATE charges SET refunded_cents = refunded_cents + ?, updated_at_ms = ?
     WHERE ${byKey('pk', "merchant_id = ? AND kind = 'charge' AND stage = 'settled' AND captured_cents - refunded_cents - linked_cents >= ?")}`,
    [amountCents, nowMs, parentPk, merchantId, amountCents],
  );
  return result.changes === 1;
}

export interface NewRefund {
  readonly parent: ChargeRow;
  /** The source whose credentials asked for the refund (its Idempotency-Keys are scoped to it). */
  readonly sourceId: string;
  readonly amountCents: number;
  readonly idemKey: string | null;
  readonly recoverAtMs: number;
  readonly nowMs: number;
  /** What the refund keeps of its request; absent: the refunded charge's. */
  readonly requestJson?: string;
}

/** What a refund keeps in place of a sealed card number: the processor refunds by the charge's reference. */
const NO_CARD = Buffer.alloc(0);

/** Inserts a refund awaiting the processor's answer; returns its reference number. */
export async function insertRefund(tx: Tx, r: NewRefund): Promise<number> {
  const p = r.parent;
  const pk = await tx.insert(
    `INSERT INTO charges (merchant_id, source_id, status, amount_cents, currency, card_type, last4, bin, expiry_month, expiry_year, card_number_enc,
       request_json, idem_key, next_run_at_ms, created_at_ms, updated_at_ms, kind, parent_pk)
     VALUES (?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'refund', ?)`,
    [
      p.merchant_id,
      r.sourceId,
      r.amountCents,
      p.currency,
      p.card_type,
      p.last4,
      p.bin,
      p.expiry_month,
      p.expiry_year,
      NO_CARD,
      r.requestJson ?? p.request_json,
      r.idemKey,
      r.recoverAtMs,
      r.nowMs,
      r.nowMs,
      p.pk,
    ],
  );
  if (pk === null) throw new Error('INSERT INTO charges (refund) returned no pk');
  return pk;
}

/** Records an approved refund: the refund as captured, in the open batch it settles with; undefined when recorded already. */
export async function recordRefundApproved(
  tx: Tx,
  pk: number,
  answer: { authCode: string; processorRef: string; nowMs: number },
): Promise<ChargeRow | undefined> {
  return changeCharge(tx, {
    set: "status = 'approved', stage = 'captured', auth_code = ?, processor_ref = ?, next_run_at_ms = NULL, updated_at_ms = ?",
    values: [answer.authCode, answer.processorRef, answer.nowMs],
    pk,
    condition: "kind = 'refund' AND status = 'pending'",
    joinBatchWhen: 'TRUE',
    nowMs: answer.nowMs,
  });
}

/**
 * Records a declined or failed refund and gives its amount back to the
 * parent's refundable: the refund as recorded, or undefined when recorded already.
 */
export async function recordRefundRefused(
  tx: Tx,
  refund: { pk: number; parentPk: number; amountCents: number },
  answer: { status: 'declined' | 'failed'; errorCode: string; errorMessage: string; processorRef: string; nowMs: number },
): Promise<ChargeRow | undefined> {
  const refused = await changeCharge(tx, {
    set: "status = ?, auth_code = '', error_code = ?, error_message = ?, processor_ref = ?, next_run_at_ms = NULL, updated_at_ms = ?",
    values: [answer.status, answer.errorCode, answer.errorMessage, answer.processorRef, answer.nowMs],
    pk: refund.pk,
    condition: "kind = 'refund' AND status = 'pending'",
    joinBatchWhen: null,
    nowMs: answer.nowMs,
  });
  if (refused === undefined) return undefined;
  await tx.run('UPDATE charges SET refunded_cents = refunded_cents - ?, updated_at_ms = ? WHERE pk = ?', [refund.amountCents, answer.nowMs, refund.parentPk]);
  return refused;
}

/** Claims at most `limit` refunds awaiting an answer that are due, leasing them until `leaseUntilMs`. */
export async function claimDueRefunds(tx: Tx, nowMs: number, leaseUntilMs: number, limit: number): Promise<ChargeRow[]> {
  return claimDueOfKind<ChargeRow>(tx, 'refund', CHARGE_COLUMNS, nowMs, leaseUntilMs, limit);
}

/** The refund made with an Idempotency-Key of this source at or after the key's reservation (see getRowHoldingKey). */
export async function getRefundHoldingKey(tx: Tx, key: HeldKey): Promise<ChargeRow | undefined> {
  return getChargeHoldingKey(tx, key, 'refund');
}

/** Refunds of one charge of the merchant, oldest first, at most `limit`. */
export async function listRefundsOf(tx: Tx, merchantId: string, parentPk: number, limit: number): Promise<ChargeRow[]> {
  const rows = await tx.all<ChargeRow>(
    `SELECT ${CHARGE_COLUMNS} FROM charges WHERE parent_pk = ? AND merchant_id = ? AND kind = 'refund' ORDER BY pk LIMIT ?`,
    [parentPk, merchantId, limit],
  );
  return rows.map((row) => chargeRowOf(row));
}
