// Preparing state changes of transfers (one, or a worker's whole batch): the
// guarded row update, the ledger posting a final state needs, the release of
// a failed transfer's payin link, and the event row, decided and rendered
// before any transaction; store/transfers/transitions.ts writes them in the
// command's. Every path that changes a transfer's state (worker,
// invitations, reconciliation, operator) comes through here, so the ledger
// moves of docs/api-decisions.md section 7 are made in exactly one place.
import { isoTime } from '../../domain/iso-time.ts';
import { merchantAccount, type PostingInput } from '../../domain/ledger.ts';
import { STATE } from '../../domain/transfer-states.ts';
import type { Service } from '../../service.ts';
import type { TransferEventInput, TransferRow } from '../../store/transfers.ts';
import type { NotedChange, PreparedTransitions, PrepareTransitions, TransitionOf, TransitionWrites } from '../../store/transfers/transitions.ts';
import { transferEventDataAt, transferEventType } from './events.ts';

export type { NotedChange, PreparedTransitions, PrepareTransitions, TransitionOf };

/** prepareTransitions bound to the service's views, for commands that decide a transition inside their transaction. */
export function transitionsPreparer(service: Pick<Service, 'providers' | 'corridors'>): PrepareTransitions {
  return (batch, nowMs) => prepareTransitions(service, batch, nowMs);
}

/**
 * Pure: the rows a batch of transitions writes, events rendered, as if every
 * row were still at the version it was read at. The worker prepares its
 * batch before it opens the transaction, which then holds the store's write
 * lock for the statements only (on SQLite, the lock the API's executes wait for).
 */
export function prepareTransitions(service: Pick<Service, 'providers' | 'corridors'>, batch: readonly TransitionOf[], nowMs: number): PreparedTransitions {
  for (const { row, changes } of batch) assertChain(row, changes);
  if (new Set(batch.map(({ row }) => row.pk)).size !== batch.length) throw new Error('a transfer appears twice in one batch of transitions');
  const serverTime = isoTime(nowMs);
  const writes = batch.map(({ row, changes }): TransitionWrites => {
    const postings: PostingInput[] = [];
    const history: TransferEventInput[] = [];
    const events: Array<TransitionWrites['events'][number]> = [];
    let unlink = false;
    let from: { state: number } = row;
    for (const { change, note } of changes) {
      if (change.state === STATE.succeeded) {
        postings.push(finalPosting(row, 'transfer.succeed', 'paid_out', nowMs));
      } else if (change.state === STATE.failed) {
        postings.push(finalPosting(row, 'transfer.fail', 'available', nowMs));
        if (row.gateway_charge_pk !== null) unlink = true;
      }
      history.push({ transferPk: row.pk, state: change.state, substate: change.substate, note, atMs: nowMs });
      const type = transferEventType(from, change);
      if (type !== null) {
        const status = { ...change, code: row.code, receiver_phone: row.receiver_phone, service: row.service };
        events.push({ merchantId: row.merchant_id, type, dataJson: transferEventDataAt(service, { id: row.id, status }, serverTime), nowMs });
      }
      from = change;
    }
    return { postings, unlink, history, events };
  });
  return {
    updates: batch.map(({ row, changes }) => ({ pk: row.pk, version: row.version, change: changes[changes.length - 1]!.change })),
    writes,
    // History rows and events in pk order, as the rows were locked.
    order: batch.map((_, i) => i).sort((a, b) => batch[a]!.row.pk - batch[b]!.row.pk),
    nowMs,
  };
}

function assertChain(row: TransferRow, changes: readonly NotedChange[]): void {
  if (changes.length === 0) throw new Error(`transfer ${row.pk}: a transition needs at least one change`);
  changes.forEach(({ change }, k) => {
    if (change.final === 1 && change.state !== STATE.succeeded && change.state !== STATE.failed) {
      throw new Error(`transfer ${row.pk}: final state must be 60 or 80, got ${change.state}`);
    }
    if (change.final === 1 && k < changes.length - 1) throw new Error(`transfer ${row.pk}: only the last change of a transition may be final`);
  });
}

/** The move of docs/api-decisions.md section 7 for a final state: the money in flight is paid out, or goes back to available. */
function finalPosting(row: TransferRow, kind: 'transfer.succeed' | 'transfer.fail', to: 'paid_out' | 'available', nowMs: number): PostingInput {
  return {
    kind,
    debitAccountId: merchantAccount(row.merchant_id, 'in_flight'),
    creditAccountId: merchantAccount(row.merchant_id, to),
    amountCents: Number(row.amount_cents),
    merchantId: row.merchant_id,
    refId: String(row.pk),
    nowMs,
  };
}
