// Applying one state change of a transfer: the guarded row update, the
// ledger posting a final state needs, the release of a failed transfer's
// payin link, and the event row, all in the caller's transaction. Every
// path that changes a transfer's state (worker, invitations, operator)
// comes through here, so the ledger moves of docs/api-decisions.md section 7 are made in
// exactly one place.
import { merchantAccount } from '../../domain/ledger.ts';
import { STATE } from '../../domain/transfer-states.ts';
import type { Service } from '../../service.ts';
import type { Txn } from '../../store/db.ts';
import { post } from '../../store/ledger.ts';
import { applyChange, insertEvent, unlinkCharge, type TransferChange, type TransferRow } from '../../store/transfers.ts';
import { emitTransferEvent, transferEventType } from '../events/emit.ts';

/**
 * Returns false, having written nothing, when the row is no longer at the
 * version it was read at (another worker, an operator or an invitation got
 * there first).
 */
export async function transition(
  tx: Txn,
  service: Pick<Service, 'providers'>,
  row: TransferRow,
  change: TransferChange,
  note: string | null,
  nowMs: number,
): Promise<boolean> {
  if (change.final === 1 && change.state !== STATE.succeeded && change.state !== STATE.failed) {
    throw new Error(`transfer ${row.pk}: final state must be 60 or 80, got ${change.state}`);
  }
  if (!(await applyChange(tx, row.pk, row.version, change, nowMs))) return false;
  if (change.state === STATE.succeeded) {
    await postFinal(tx, row, 'transfer.succeed', 'paid_out', nowMs);
  } else if (change.state === STATE.failed) {
    await postFinal(tx, row, 'transfer.fail', 'available', nowMs);
    if (row.gateway_charge_pk !== null) await unlinkCharge(tx, row.pk, nowMs);
  }
  await insertEvent(tx, row.pk, change.state, change.substate, note, nowMs);
  const type = transferEventType(row, change);
  if (type !== null) {
    const status = { ...change, code: row.code, receiver_phone: row.receiver_phone };
    await emitTransferEvent(tx, service, type, { merchantId: row.merchant_id, id: row.id, status }, nowMs);
  }
  return true;
}

async function postFinal(tx: Txn, row: TransferRow, kind: 'transfer.succeed' | 'transfer.fail', to: 'paid_out' | 'available', nowMs: number): Promise<void> {
  const outcome = await post(tx, {
    kind,
    debitAccountId: merchantAccount(row.merchant_id, 'in_flight'),
    creditAccountId: merchantAccount(row.merchant_id, to),
    amountCents: Number(row.amount_cents),
    merchantId: row.merchant_id,
    refId: String(row.pk),
    nowMs,
  });
  // In flight has no floor, so a refusal here means the ledger is broken: stop loudly.
  if (outcome !== 'posted') throw new Error(`transfer ${row.pk}: ${kind} posting was refused (${outcome})`);
}
