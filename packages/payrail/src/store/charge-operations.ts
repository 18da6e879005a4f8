// Capture and void of a charge (docs/api-decisions.md section 10). Like a
// charge, each is written before the processor is asked (`op` on the charge
// row, with its amount, Idempotency-Key and when the worker should ask
// again) and its answer is recorded by a guarded UPDATE afterwards, so a
// crash in between leaves an operation the worker resolves, never a guess.
// Each reservation is one conditional UPDATE: two captures, or a capture and
// a void, of one charge can never both be reserved, however they interleave.
import { CHARGE_COLUMNS, type ChargeRow, changeCharge, chargeRowOf, ERASE_REFERENCE_CARD } from './charges.ts';
import type { Tx } from './db.ts';
import { byKey } from './by-key.ts';

export interface OperationReservation {
  readonly pk: number;
  readonly merchantId: string;
  readonly sourceId: string;
  readonly idemKey: string | null;
  /** When the worker asks the processor if the request never records an answer. */
  readonly recoverAtMs: number;
  readonly nowMs: number;
}

/**
 * Reserves the capture of `amountCents` (at most the authorized amount;
 * null: the authorized amount) of an authorization created after
 * `createdAfterMs` (younger than its lifetime), and returns the row as
 * reserved. Undefined when the charge is not such an authorization (any
 * more): the caller reads it to tell why, or what to answer.
 */
export async function reserveCapture(tx: Tx, r: OperationReservation & { amountCents: number | null; createdAfterMs: number }): Promise<ChargeRow | undefined> {
  const row = await tx.get<ChargeRow>(
    `UPDATE charges SET op = 'capture', op_cents = COALESCE(?, amount_cents), op_source_id = ?, op_idem_key = ?, op_next_run_at_ms = ?, updated_at_ms = ?
     WHERE ${byKey('pk', "merchant_id = ? AND kind = 'charge' AND status = 'approved' AND stage = 'authorized' AND op IS NULL AND created_at_ms > ? AND amount_cents >= COALESCE(?, amount_cents)")}
     RETURNING ${CHARGE_COLUMNS}`,
    [r.amountCents, r.sourceId, r.idemKey, r.recoverAtMs, r.nowMs, r.pk, r.merchantId, r.createdAfterMs, r.amountCents],
  );
  return row === undefined ? undefined : chargeRowOf(row);
}

/**
 * Reserves the void of an authorization, or of a captured charge that funds
 * no transfer; a captured one holds its captured amount in voided_cents (the
 * caller posts it back in the same transaction). Returns the amount held, or
 * null when the charge cannot be voided now.
 */
export async function reserveVoid(tx: Tx, r: OperationReservation): Promise<number | null> {
  const row = await tx.get<{ voided_cents: number }>(
    `UPDATE charges SET op = 'void', voided_cents = CASE WHEN stage = 'captured' THEN captured_cents ELSE 0 END,
       op_cents = CASE WHEN stage = 'captured' THEN captured_cents ELSE 0 END,
       op_source_id = ?, op_idem_key = ?, op_next_run_at_ms = ?, updated_at_ms = ?
     WHERE ${byKey('pk', "merchant_id = ? AND kind = 'charge' AND status = 'approved' AND op IS NULL AND void_refused = 0 AND (stage = 'authorized' OR (stage = 'captured' AND linked_cents = 0))")}
     RETURNING voided_cents`,
    [r.sourceId, r.idemKey, r.recoverAtMs, r.nowMs, r.pk, r.merchantId],
  );
  return row === undefined ? null : Number(row.voided_cents);
}

/** Records an approved capture of `capturedCents`: the charge as captured, in the open batch; undefined when someone recorded this operation first. */
export async function recordCaptured(tx: Tx, pk: number, capturedCents: number, nowMs: number): Promise<ChargeRow | undefined> {
  return changeCharge(tx, {
    set: "stage = 'captured', captured_cents = ?, op = NULL, op_cents = NULL, op_next_run_at_ms = NULL, updated_at_ms = ?",
    values: [capturedCents, nowMs],
    pk,
    condition: "op = 'capture'",
    joinBatchWhen: 'TRUE',
    nowMs,
  });
}

/** Records an approved void: the charge as voided, or undefined when someone recorded this operation first. */
export async function recordVoided(tx: Tx, pk: number, nowMs: number): Promise<ChargeRow | undefined> {
  return changeCharge(tx, {
    // A voided charge moved no money: the card it kept for `ref-` charges goes with it.
    set: `stage = 'voided', op = NULL, op_cents = NULL, op_next_run_at_ms = NULL, updated_at_ms = ?, ${ERASE_REFERENCE_CARD}`,
    values: [nowMs],
    pk,
    condition: "op = 'void'",
    joinBatchWhen: null,
    nowMs,
  });
}

/**
 * Records that the processor refused the operation: the charge is where it
 * was; a refused void gives back what it held and is not tried again (its
 * ledger posting exists once per charge). False when recorded already.
 */
export async function recordOperationRefused(tx: Tx, pk: number, op: 'capture' | 'void', nowMs: number): Promise<boolean> {
  const voidReset = op === 'void' ? ', voided_cents = 0, void_refused = 1' : '';
  const result = await tx.run(
    `UPDATE charges SET op = NULL, op_cents = NULL, op_next_run_at_ms = NULL, updated_at_ms = ?${voidReset} WHERE ${byKey('pk', 'op = ?')}`,
    [nowMs, pk, op],
  );
  return result.changes === 1;
}

/**
 * Claims at most `limit` operations awaiting an answer that are due, pushing
 * their next look to `leaseUntilMs` in the same statement, so two workers
 * never ask about one at once.
 */
export async function claimDueOperations(tx: Tx, nowMs: number, leaseUntilMs: number, limit: number): Promise<ChargeRow[]> {
  const rows = await tx.all<ChargeRow>(
    `UPDATE charges SET op_next_run_at_ms = ?
     WHERE op IS NOT NULL AND op_next_run_at_ms <= ?
       AND pk IN (SELECT pk FROM charges WHERE op IS NOT NULL AND op_next_run_at_ms <= ? ORDER BY op_next_run_at_ms LIMIT ?)
     RETURNING ${CHARGE_COLUMNS}`,
    [leaseUntilMs, nowMs, nowMs, limit],
  );
  return rows.map((row) => chargeRowOf(row));
}

/** Authorizations older than their lifetime become expired, at most `limit` per call; returns how many. */
export async function expireAuthorizations(
  tx: Tx,
  createdAtOrBeforeMs: number,
  nowMs: number,
  limit: number,
): Promise<Array<{ pk: number; merchant_id: string }>> {
  return tx.all<{ pk: number; merchant_id: string }>(
    // An expired authorization moved no money either: its kept card is erased (docs/api-decisions.md section 15).
    `UPDATE charges SET stage = 'expired', updated_at_ms = ?, ${ERASE_REFERENCE_CARD}
     WHERE stage = 'authorized' AND op IS NULL
       AND pk IN (SELECT pk FROM charges WHERE stage = 'authorized' AND op IS NULL AND created_at_ms <= ? ORDER BY created_at_ms LIMIT ?)
     RETURNING pk, merchant_id`,
    [nowMs, createdAtOrBeforeMs, limit],
  );
}

/** Whether any authorization is due to expire: a read, so the worker writes only when there is work. */
export async function hasExpiringAuthorizations(tx: Tx, createdAtOrBeforeMs: number): Promise<boolean> {
  return (
    (await tx.get("SELECT 1 AS one FROM charges WHERE stage = 'authorized' AND op IS NULL AND created_at_ms <= ? LIMIT 1", [createdAtOrBeforeMs])) !== undefined
  );
}
