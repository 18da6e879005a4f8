// Step 1 of a capture or a void (docs/api-decisions.md sections 10 and 14):
// one write transaction that reserves the Idempotency-Key, checks the
// transaction and writes the operation on it (a void of a captured charge
// also holds the captured amount back from the merchant, refused below
// balance + overdraft). The processor is asked afterwards, outside it.
//
// The checks and the writes that depend on them are one transaction, so the
// command owns the decision and answers it: reserved, answered as it stands
// (the same operation again), taken (the key was used before), busy (the
// same operation is under way, or the row changed under the request), or
// refused. A refusal and busy roll back what the command wrote (the key).
import { AUTHORIZATION_LIFETIME_MS } from '../../domain/card-lifecycle.ts';
import type { OperationReservation } from '../charge-operations.ts';
import { reserveCapture, reserveVoid } from '../charge-operations.ts';
import type { ChargeRow } from '../charges.ts';
import { command, Refusal } from '../command.ts';
import type { Db, Tx } from '../db.ts';
import { completeKey } from '../idempotency.ts';
import { moveCardMoney } from './card-money.ts';
import { findNamed, keyFree, type OperationCaller, type OperationKey, type OperationRefusal, type Refused, unapprovedRefusal } from './operation-common.ts';

export type OperationStep =
  | { readonly kind: 'taken' }
  | { readonly kind: 'done'; readonly json: string }
  | { readonly kind: 'reserved'; readonly row: ChargeRow }
  | { readonly kind: 'busy' }
  | Refused;

export interface OperationRequest {
  readonly caller: OperationCaller;
  readonly pk: number;
  /** The amount asked for; null: the whole amount. */
  readonly amountCents: number | null;
  readonly idem: OperationKey;
  /** Read in the transaction, as the decision's "now". */
  readonly clock: { nowMs(): number };
  /** A completed key older than this is reserved anew. */
  readonly keyTtlMs: number;
  /** When, after the reservation, the worker asks the processor should the request not record an answer. */
  readonly recoverAfterMs: number;
  /** The transaction as GET /api/v2/transactions/:id shows it: the reply kept in the key when it is answered as it stands. */
  readonly render: (row: ChargeRow) => string;
}

const refuse = (refusal: OperationRefusal): never => {
  throw new Refusal<OperationStep>({ kind: 'refused', refusal });
};
const busy = (): never => {
  throw new Refusal<OperationStep>({ kind: 'busy' });
};

/** Answers the transaction as it is, and keeps that answer in the key. */
async function answerAsIs(tx: Tx, r: OperationRequest, row: ChargeRow): Promise<OperationStep> {
  const json = r.render(row);
  if (r.idem !== null) await completeKey(tx, r.caller.sourceId, r.idem.key, 200, json);
  return { kind: 'done', json };
}

/**
 * What a capture and a void both check once the key is reserved: an approved
 * charge of the caller with no other operation under way (the same one under
 * way is busy).
 */
async function operableAfterKey(tx: Tx, op: 'capture' | 'void', r: OperationRequest): Promise<ChargeRow> {
  const named = await findNamed(tx, r.pk, r.caller.merchantId);
  if (named.kind === 'refused') return refuse(named.refusal);
  const row = named.row;
  const unapproved = unapprovedRefusal(row);
  if (unapproved !== null) refuse(unapproved);
  if (row.op === op) busy();
  if (row.op !== null) refuse({ reason: 'other_operation', op: row.op });
  return row;
}

/** Who reserves the operation, and when the worker asks the processor should this request not. */
function reservationOf(r: OperationRequest, nowMs: number): OperationReservation {
  return {
    pk: r.pk,
    merchantId: r.caller.merchantId,
    sourceId: r.caller.sourceId,
    idemKey: r.idem?.key ?? null,
    recoverAtMs: nowMs + r.recoverAfterMs,
    nowMs,
  };
}

/** Reserves a capture of `amountCents` (null: the authorized amount). */
export async function startCapture(db: Db, r: OperationRequest): Promise<OperationStep> {
  return command(db, async (tx) => {
    const nowMs = r.clock.nowMs();
    if (!(await keyFree(tx, r.caller, r.idem, nowMs, r.keyTtlMs))) return { kind: 'taken' };
    const createdAfterMs = nowMs - AUTHORIZATION_LIFETIME_MS;
    // The common case (an authorization that can take this capture) in one
    // statement, one round trip on PostgreSQL; anything else is read and
    // decided below, exactly as if this had not been tried (it changed nothing).
    const reserved = await reserveCapture(tx, { ...reservationOf(r, nowMs), amountCents: r.amountCents, createdAfterMs });
    if (reserved !== undefined) return { kind: 'reserved', row: reserved };
    const row = await operableAfterKey(tx, 'capture', r);
    if (row.stage === 'captured' || row.stage === 'settled') {
      // Captured once: asked again without an amount, or for the amount captured, it answers as it stands; another amount is refused.
      if (r.amountCents !== null && r.amountCents !== row.captured_cents) refuse({ reason: 'captured_once', capturedCents: row.captured_cents });
      return answerAsIs(tx, r, row);
    }
    if (row.stage !== 'authorized') refuse({ reason: 'not_capturable', stage: row.stage });
    const cents = r.amountCents ?? row.amount_cents;
    if (cents > row.amount_cents) refuse({ reason: 'above_authorized', authorizedCents: row.amount_cents });
    if (row.created_at_ms <= createdAfterMs) refuse({ reason: 'authorization_expired' });
    const reservedNow = await reserveCapture(tx, { ...reservationOf(r, nowMs), amountCents: cents, createdAfterMs });
    if (reservedNow === undefined) return busy();
    return { kind: 'reserved', row: reservedNow };
  });
}

/** Reserves a void of the whole amount (`amountCents`, when given, must be it). */
export async function startVoid(db: Db, r: OperationRequest): Promise<OperationStep> {
  return command(db, async (tx) => {
    const nowMs = r.clock.nowMs();
    if (!(await keyFree(tx, r.caller, r.idem, nowMs, r.keyTtlMs))) return { kind: 'taken' };
    const row = await operableAfterKey(tx, 'void', r);
    if (row.stage === 'voided') return answerAsIs(tx, r, row);
    if (row.stage === 'settled') refuse({ reason: 'settled' });
    if (row.stage === 'expired') refuse({ reason: 'expired' });
    if (row.void_refused === 1) refuse({ reason: 'void_refused' });
    if (row.linked_cents > 0) refuse({ reason: 'funds_transfers', linkedCents: row.linked_cents });
    const wholeCents = row.stage === 'captured' ? row.captured_cents : row.amount_cents;
    if (r.amountCents !== null && r.amountCents !== wholeCents) refuse({ reason: 'not_whole', wholeCents });
    const heldCents = await reserveVoid(tx, reservationOf(r, nowMs));
    if (heldCents === null) return busy();
    if (heldCents > 0 && (await moveCardMoney(tx, row, 'charge.void', false, heldCents, nowMs)) === 'below_floor') {
      refuse({ reason: 'void_below_floor', heldCents });
    }
    return { kind: 'reserved', row: reservedRow(row, heldCents, r) };
  });
}

/** The row as the void's reservation left it (reserveVoid returns only the amount held). */
function reservedRow(row: ChargeRow, heldCents: number, r: OperationRequest): ChargeRow {
  return {
    ...row,
    op: 'void',
    op_cents: heldCents,
    op_source_id: r.caller.sourceId,
    op_idem_key: r.idem?.key ?? null,
    voided_cents: heldCents,
  };
}
