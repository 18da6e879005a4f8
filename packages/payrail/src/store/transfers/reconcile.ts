// Automatic reconciliation's reads and writes (flows/transfers/reconcile.ts):
// the transfers waiting for a payin, and the link of one to the oldest
// approved charge of its merchant with room for it.
import { command, Refusal } from '../command.ts';
import type { Db } from '../db.ts';
import { findReconciliationCharge, linkCharge, reconcilableTransfers, type TransferChange, type TransferRow } from '../transfers.ts';
import { applyTransition, type PrepareTransitions } from './transitions.ts';

/** At most `limit` transfers waiting for reconciliation, whose charges may be from `sinceMs` on. */
export function readReconcilableTransfers(db: Db, sinceMs: number, limit: number): Promise<TransferRow[]> {
  return db.read((tx) => reconcilableTransfers(tx, sinceMs, limit));
}

/**
 * Links `row` to a charge and moves it on by `plan(chargePk)`, in one
 * transaction; false, having written nothing, when no charge has room, the
 * row changed meanwhile, or the charge filled up between its choice and the
 * link.
 */
export function reconcileTransfer(
  db: Db,
  input: {
    readonly row: TransferRow;
    readonly sinceMs: number;
    readonly nowMs: number;
    readonly plan: (chargePk: number) => { readonly change: TransferChange; readonly note: string };
    readonly prepare: PrepareTransitions;
  },
): Promise<boolean> {
  const { row, nowMs } = input;
  return command(db, async (tx) => {
    // Chosen inside the write: earlier transfers of this batch may have used the charge up.
    const chargePk = await findReconciliationCharge(tx, row.merchant_id, Number(row.amount_cents), input.sinceMs);
    if (chargePk === null) return false;
    const { change, note } = input.plan(chargePk);
    if (!(await applyTransition(tx, input.prepare, row, change, note, nowMs))) return false;
    const linked = await linkCharge(tx, {
      transferPk: row.pk,
      chargePk,
      merchantId: row.merchant_id,
      amountCents: Number(row.amount_cents),
      how: 'auto',
      nowMs,
    });
    // The charge filled up meanwhile: the transition rolls back with it.
    if (!linked) throw new Refusal(false);
    return true;
  });
}
