// Applying state changes of transfers (one, or a worker's whole batch): the
// guarded row update, the ledger posting a final state needs, the release of
// a failed transfer's payin link, and the event row, all in the caller's
// transaction. Every path that changes a transfer's state (worker,
// invitations, operator) comes through here, so the ledger moves of
// docs/api-decisions.md section 7 are made in exactly one place.
import { merchantAccount, type PostingInput } from '../../domain/ledger.ts';
import { STATE } from '../../domain/transfer-states.ts';
import type { Service } from '../../service.ts';
import type { Txn } from '../../store/db.ts';
import { postBatch } from '../../store/ledger.ts';
import { applyChanges, insertTransferEvents, type TransferChange, type TransferEventInput, type TransferRow, unlinkCharge } from '../../store/transfers.ts';
import { emitTransferEvents, type TransferEventOf, transferEventType } from '../events/emit.ts';

/** One change of a transfer with the note of its history row. */
export interface NotedChange {
  readonly change: TransferChange;
  readonly note: string | null;
}

/**
 * Changes of one transfer made in one go, from the row as it was read: each
 * change gets its history row and event as if it had been applied on its
 * own, in order, and the row ends at the last one. Only the last may be final.
 */
export interface TransitionOf {
  readonly row: TransferRow;
  readonly changes: readonly NotedChange[];
}

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
  const [applied] = await transitionBatch(tx, service, [{ row, changes: [{ change, note }] }], nowMs);
  return applied!;
}

/**
 * Applies the transitions of a batch in the caller's transaction, set-based:
 * the rows' guarded UPDATEs by multi-row statements (each row still guarded
 * by its own version, so a row someone else changed drops only its own
 * transition), the ledger postings of every final state as one batch, the
 * history rows and the events each by multi-row INSERT. Returns, per
 * transition, whether it was applied.
 */
export async function transitionBatch(tx: Txn, service: Pick<Service, 'providers'>, batch: readonly TransitionOf[], nowMs: number): Promise<boolean[]> {
  for (const { row, changes } of batch) assertChain(row, changes);
  if (new Set(batch.map(({ row }) => row.pk)).size !== batch.length) throw new Error('a transfer appears twice in one batch of transitions');
  const changed = await applyChanges(
    tx,
    batch.map(({ row, changes }) => ({ pk: row.pk, version: row.version, change: changes[changes.length - 1]!.change })),
    nowMs,
  );
  const applied = batch.map(({ row }) => changed.has(row.pk));
  // History rows and events in pk order, as the rows were locked.
  const order = batch.map((_, i) => i).sort((a, b) => batch[a]!.row.pk - batch[b]!.row.pk);
  const postings: PostingInput[] = [];
  const unlinks: number[] = [];
  const history: TransferEventInput[] = [];
  const events: TransferEventOf[] = [];
  for (const i of order) {
    if (!applied[i]) continue;
    const { row, changes } = batch[i]!;
    let from: { state: number } = row;
    for (const { change, note } of changes) {
      if (change.state === STATE.succeeded) {
        postings.push(finalPosting(row, 'transfer.succeed', 'paid_out', nowMs));
      } else if (change.state === STATE.failed) {
        postings.push(finalPosting(row, 'transfer.fail', 'available', nowMs));
        if (row.gateway_charge_pk !== null) unlinks.push(row.pk);
      }
      history.push({ transferPk: row.pk, state: change.state, substate: change.substate, note, atMs: nowMs });
      const type = transferEventType(from, change);
      if (type !== null) {
        events.push({ type, transfer: { merchantId: row.merchant_id, id: row.id, status: { ...change, code: row.code, receiver_phone: row.receiver_phone } } });
      }
      from = change;
    }
  }
  // Sent together (pipelined on PostgreSQL); a refused posting throws and the caller's transaction takes all of it back.
  await Promise.all([
    postBatch(tx, postings).then((outcome) => {
      // In flight has no floor, so a refusal here means the ledger is broken: stop loudly.
      if (outcome !== 'posted') throw new Error(`transfers ${postings.map((p) => p.refId).join(', ')}: final postings were refused (${outcome})`);
    }),
    ...unlinks.map((pk) => unlinkCharge(tx, pk, nowMs)),
    insertTransferEvents(tx, history),
    emitTransferEvents(tx, service, events, nowMs),
  ]);
  return applied;
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
