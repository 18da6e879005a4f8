// The operator's changes of one transfer (flows/transfers/operator.ts): read,
// decided on by the flow's pure `decide`, changed, and for a link the payin
// reserved, all in one audited transaction; a refusal rolls back whatever
// was written on the way.
import { type AuditNote, appendAuditNote } from '../audit-events.ts';
import { command, Refusal } from '../command.ts';
import type { Db } from '../db.ts';
import { getTransfer, linkCharge, type TransferChange, type TransferRow } from '../transfers.ts';
import { applyTransition, type PrepareTransitions } from './transitions.ts';

/** What the flow decides of the row it read: refuse (with its words), or make the change (and link a payin). */
export type OperatorDecision =
  | { readonly kind: 'refused'; readonly reason: string }
  | { readonly kind: 'change'; readonly change: TransferChange; readonly note: string; readonly linkChargePk: number | null };

export type OperatorAnswer =
  | { readonly kind: 'changed'; readonly row: TransferRow; readonly change: TransferChange }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'refused'; readonly reason: string }
  /** The row changed between its read and its update. */
  | { readonly kind: 'raced'; readonly row: TransferRow }
  /** The payin could not fund the transfer (the change rolled back). */
  | { readonly kind: 'link_refused'; readonly row: TransferRow; readonly chargePk: number };

export function changeTransferByOperator(
  db: Db,
  input: {
    readonly merchantId: string;
    readonly transferId: string;
    /** Read once the row is, as the change's time. */
    readonly nowMs: () => number;
    readonly decide: (row: TransferRow, nowMs: number) => OperatorDecision;
    readonly prepare: PrepareTransitions;
    readonly audit: AuditNote;
  },
): Promise<OperatorAnswer> {
  return command(db, async (tx): Promise<OperatorAnswer> => {
    const row = await getTransfer(tx, input.merchantId, input.transferId);
    if (row === undefined) return { kind: 'not_found' };
    const nowMs = input.nowMs();
    const decision = input.decide(row, nowMs);
    if (decision.kind === 'refused') return decision;
    if (!(await applyTransition(tx, input.prepare, row, decision.change, decision.note, nowMs))) return { kind: 'raced', row };
    const chargePk = decision.linkChargePk;
    if (chargePk !== null) {
      const link = { transferPk: row.pk, chargePk, merchantId: row.merchant_id, amountCents: Number(row.amount_cents), how: 'operator', nowMs } as const;
      if (!(await linkCharge(tx, link))) throw new Refusal<OperatorAnswer>({ kind: 'link_refused', row, chargePk });
    }
    await appendAuditNote(tx, input.audit);
    return { kind: 'changed', row, change: decision.change };
  });
}
