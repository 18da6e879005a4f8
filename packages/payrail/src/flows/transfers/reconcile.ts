// Automatic reconciliation (docs/api-decisions.md section 7): a transfer of a merchant whose
// payouts must be linked to payins, sent without gatewayId, waits until an
// approved charge of that merchant from the last 24 hours has room for it.
// The oldest such charge is linked and the transfer proceeds.
import { RECONCILIATION_WINDOW_MS, SUBSTATE } from '../../domain/transfer-states.ts';
import type { Service } from '../../service.ts';
import { changeFrom, findReconciliationCharge, linkCharge, reconcilableTransfers, type TransferRow } from '../../store/transfers.ts';
import { transition } from './transitions.ts';

export const RECONCILE_BATCH_MAX = 100;

/** Raised inside a write to roll back a link whose charge filled up meanwhile. */
class ChargeTaken extends Error {}

/** Links what it can of one bounded batch; returns how many transfers were reconciled. */
export async function reconcileWaitingTransfers(service: Service, limit = RECONCILE_BATCH_MAX): Promise<number> {
  const sinceMs = service.clock.nowMs() - RECONCILIATION_WINDOW_MS;
  const rows = await service.db.read((tx) => reconcilableTransfers(tx, sinceMs, limit));
  const done = await Promise.all(rows.map((row) => reconcileOne(service, row, sinceMs)));
  return done.filter(Boolean).length;
}

async function reconcileOne(service: Service, row: TransferRow, sinceMs: number): Promise<boolean> {
  const nowMs = service.clock.nowMs();
  try {
    return await service.db.write(async (tx) => {
      // Chosen inside the write: earlier transfers of this batch may have used the charge up.
      const chargePk = await findReconciliationCharge(tx, row.merchant_id, Number(row.amount_cents), sinceMs);
      if (chargePk === null) return false;
      const change = { ...changeFrom(row), substate: SUBSTATE.ready, waiting_for: null, next_run_at_ms: nowMs, gateway_charge_pk: chargePk };
      if (!(await transition(tx, service, row, change, `reconciled with card payin ${chargePk}`, nowMs))) return false;
      const linked = await linkCharge(tx, {
        transferPk: row.pk,
        chargePk,
        merchantId: row.merchant_id,
        amountCents: Number(row.amount_cents),
        how: 'auto',
        nowMs,
      });
      if (!linked) throw new ChargeTaken();
      return true;
    });
  } catch (error) {
    if (error instanceof ChargeTaken) return false;
    throw error;
  }
}
