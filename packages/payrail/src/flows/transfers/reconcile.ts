// Automatic reconciliation (docs/api-decisions.md section 7): a transfer of a merchant whose
// payouts must be linked to payins, sent without gatewayId, waits until an
// approved charge of that merchant from the last 24 hours has room for it.
// The oldest such charge is linked and the transfer proceeds.
import { RECONCILIATION_WINDOW_MS, SUBSTATE } from '../../domain/transfer-states.ts';
import type { Service } from '../../service.ts';
import { changeFrom, type TransferRow } from '../../store/transfers.ts';
import { readReconcilableTransfers, reconcileTransfer } from '../../store/transfers/reconcile.ts';
import { type PrepareTransitions, transitionsPreparer } from './transitions.ts';

export const RECONCILE_BATCH_MAX = 100;

/** Links what it can of one bounded batch; returns how many transfers were reconciled. */
export async function reconcileWaitingTransfers(service: Service, limit = RECONCILE_BATCH_MAX): Promise<number> {
  const sinceMs = service.clock.nowMs() - RECONCILIATION_WINDOW_MS;
  const rows = await readReconcilableTransfers(service.db, sinceMs, limit);
  const prepare = transitionsPreparer(service);
  const done = await Promise.all(rows.map((row) => reconcileOne(service, prepare, row, sinceMs)));
  return done.filter(Boolean).length;
}

function reconcileOne(service: Service, prepare: PrepareTransitions, row: TransferRow, sinceMs: number): Promise<boolean> {
  const nowMs = service.clock.nowMs();
  return reconcileTransfer(service.db, {
    row,
    sinceMs,
    nowMs,
    plan: (chargePk) => ({
      change: { ...changeFrom(row), substate: SUBSTATE.ready, waiting_for: null, next_run_at_ms: nowMs, gateway_charge_pk: chargePk },
      note: `reconciled with card payin ${chargePk}`,
    }),
    prepare,
  });
}
