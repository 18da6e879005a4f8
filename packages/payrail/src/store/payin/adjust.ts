// Adjust of an unsettled card transaction (accept.blue's /transactions/adjust
// and the first step of /adjust-capture; docs/acceptblue-compatibility.md):
// one write transaction that reserves the Idempotency-Key, checks the
// transaction, records the adjustment (once per transaction: the charge is
// the adjustments table's key), writes the new amount and details on the
// charge, its event and the reply the key keeps.
//
// No processor is asked. An authorization's amount may only go down: the
// processor's authorization still covers it, and the capture (which may be
// for less than was authorized) takes the new total. A captured charge's
// amount cannot change here (the processor has captured it; a void, or a
// refund once settled, gives money back); its details can. So an adjust
// moves no money and makes no posting; the capture that follows posts the
// adjusted amount as every capture does.
import type { ChargeRow } from '../charges.ts';
import { changeCharge } from '../charges.ts';
import { command, Refusal } from '../command.ts';
import type { Db, Tx } from '../db.ts';
import { draftTransactionEventOf, type EventViews } from '../event-outbox.ts';
import { completeKey } from '../idempotency.ts';
import { findNamed, keyFree, type OperationCaller, type OperationKey, type OperationRefusal, type Refused, unapprovedRefusal } from './operation-common.ts';

export type AdjustStep = { readonly kind: 'taken' } | { readonly kind: 'done'; readonly json: string; readonly row: ChargeRow } | Refused;

export interface AdjustRequest {
  readonly caller: OperationCaller;
  readonly pk: number;
  /** The new total; null when only details change. */
  readonly amountCents: number | null;
  /** The hash of the adjust asked for: the same adjust asked again answers as it stands. */
  readonly adjustHash: string;
  /** The stored charge request with the adjust's details applied (pure: the store hands it the row's request_json). */
  readonly applyDetails: (requestJson: string) => string;
  readonly idem: OperationKey;
  /** Read in the transaction, as the decision's "now". */
  readonly clock: { nowMs(): number };
  /** A completed key older than this is reserved anew. */
  readonly keyTtlMs: number;
  readonly views: { readonly events: EventViews; readonly render: (row: ChargeRow) => string };
}

const refuse = (refusal: OperationRefusal): never => {
  throw new Refusal<AdjustStep>({ kind: 'refused', refusal });
};

/** The adjustment of charge `pk` already recorded, if any. */
async function adjustmentOf(tx: Tx, pk: number): Promise<{ request_hash: string } | undefined> {
  return tx.get<{ request_hash: string }>('SELECT request_hash FROM charge_adjustments WHERE charge_pk = ?', [pk]);
}

/** Answers the transaction as it is (the same adjust asked again), and keeps that answer in the key. */
async function answerAsIs(tx: Tx, r: AdjustRequest, row: ChargeRow): Promise<AdjustStep> {
  const json = r.views.render(row);
  if (r.idem !== null) await completeKey(tx, r.caller.sourceId, r.idem.key, 200, json);
  return { kind: 'done', json, row };
}

/** The amount the charge shows after the adjust, or the refusal of it. */
function newAmountOrRefuse(row: ChargeRow, amountCents: number | null): number {
  if (row.stage === 'settled') refuse({ reason: 'settled' });
  if (row.stage !== 'authorized' && row.stage !== 'captured') refuse({ reason: 'not_adjustable', stage: row.stage });
  if (amountCents === null) return row.amount_cents;
  if (row.stage === 'captured') {
    if (amountCents !== row.captured_cents) refuse({ reason: 'captured_amount', capturedCents: row.captured_cents });
    return row.amount_cents;
  }
  if (amountCents > row.amount_cents) refuse({ reason: 'above_authorized_adjust', authorizedCents: row.amount_cents });
  return amountCents;
}

/** Adjusts charge `pk` once: its amount (an authorization's, downward) and its details. */
export async function adjustCharge(db: Db, r: AdjustRequest): Promise<AdjustStep> {
  return command(db, async (tx) => {
    const nowMs = r.clock.nowMs();
    if (!(await keyFree(tx, r.caller, r.idem, nowMs, r.keyTtlMs))) return { kind: 'taken' };
    const named = await findNamed(tx, r.pk, r.caller.merchantId);
    if (named.kind === 'refused') return refuse(named.refusal);
    const row = named.row;
    const unapproved = unapprovedRefusal(row);
    if (unapproved !== null) refuse(unapproved);
    const earlier = await adjustmentOf(tx, r.pk);
    if (earlier !== undefined) return earlier.request_hash === r.adjustHash ? answerAsIs(tx, r, row) : refuse({ reason: 'adjusted_once' });
    if (row.op !== null) refuse({ reason: 'other_operation', op: row.op });
    const amountCents = newAmountOrRefuse(row, r.amountCents);
    // The table's key decides "once", whatever ran meanwhile: a concurrent adjust of this charge inserted first.
    const inserted = await tx.run(
      `INSERT INTO charge_adjustments (charge_pk, merchant_id, request_hash, previous_cents, amount_cents, created_at_ms) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (charge_pk) DO NOTHING`,
      [r.pk, r.caller.merchantId, r.adjustHash, row.amount_cents, amountCents, nowMs],
    );
    if (inserted.changes === 0) {
      const now = await adjustmentOf(tx, r.pk);
      const current = await findNamed(tx, r.pk, r.caller.merchantId);
      if (now?.request_hash === r.adjustHash && current.kind === 'charge') return answerAsIs(tx, r, current.row);
      return refuse({ reason: 'adjusted_once' });
    }
    // Guarded by what was decided on: a capture or void reserved meanwhile
    // leaves the charge as it was. The stage (one of STAGES) and the cents
    // (an integer of the row) are written into the condition, which takes no parameters.
    const adjusted = await changeCharge(tx, {
      set: 'amount_cents = ?, request_json = ?, updated_at_ms = ?',
      values: [amountCents, r.applyDetails(row.request_json), nowMs],
      pk: r.pk,
      condition: `status = 'approved' AND op IS NULL AND stage = '${row.stage}' AND captured_cents = ${Number(row.captured_cents)}`,
      joinBatchWhen: null,
      nowMs,
    });
    if (adjusted === undefined) return refuse({ reason: 'changed' });
    const draft = await draftTransactionEventOf(tx, r.views.events, 'charge.adjusted', adjusted, nowMs);
    const json = draft.plainJson ?? r.views.render(adjusted);
    await Promise.all([draft.insert(), r.idem === null ? undefined : completeKey(tx, r.caller.sourceId, r.idem.key, 200, json)]);
    return { kind: 'done', json, row: adjusted };
  });
}
