// Applying state changes of transfers (one, or a worker's whole batch): the
// guarded row update, the ledger posting a final state needs, the release of
// a failed transfer's payin link, and the event row, all in the caller's
// transaction. Every path that changes a transfer's state (worker,
// invitations, operator) comes through here, so the ledger moves of
// docs/api-decisions.md section 7 are made in exactly one place.
import { isoTime } from '../../domain/iso-time.ts';
import { merchantAccount, type PostingInput } from '../../domain/ledger.ts';
import { STATE } from '../../domain/transfer-states.ts';
import type { Service } from '../../service.ts';
import type { Txn } from '../../store/db.ts';
import { postBatch } from '../../store/ledger.ts';
import { applyChanges, insertTransferEvents, type TransferChange, type TransferEventInput, type TransferRow, unlinkCharge } from '../../store/transfers.ts';
import { insertEvents } from '../../store/events.ts';
import { transferEventDataAt, transferEventType } from '../events/emit.ts';

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

/** Everything a batch of transitions writes, decided before its transaction (prepareTransitions). */
export interface PreparedTransitions {
  /** The guarded row updates, one per transition, in the batch's order. */
  readonly updates: ReadonlyArray<{ readonly pk: number; readonly version: number; readonly change: TransferChange }>;
  /** What each transition writes if its row is still at its version; the batch's indexes in pk order. */
  readonly writes: ReadonlyArray<TransitionWrites>;
  readonly order: readonly number[];
  readonly nowMs: number;
}

interface TransitionWrites {
  readonly postings: readonly PostingInput[];
  readonly unlink: boolean;
  readonly history: readonly TransferEventInput[];
  readonly events: ReadonlyArray<{ readonly merchantId: string; readonly type: string; readonly dataJson: string; readonly nowMs: number }>;
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
  return applyTransitions(tx, prepareTransitions(service, batch, nowMs));
}

/**
 * Pure: the rows a batch of transitions writes, events rendered, as if every
 * row were still at the version it was read at. The worker prepares its
 * batch before it opens the transaction, which then holds the store's write
 * lock for the statements only (on SQLite, the lock the API's executes wait for).
 */
export function prepareTransitions(service: Pick<Service, 'providers'>, batch: readonly TransitionOf[], nowMs: number): PreparedTransitions {
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
        const status = { ...change, code: row.code, receiver_phone: row.receiver_phone };
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

/** The writes of prepared transitions, in the caller's transaction; per transition, whether it was applied. */
export async function applyTransitions(tx: Txn, prepared: PreparedTransitions): Promise<boolean[]> {
  const changed = await applyChanges(tx, prepared.updates, prepared.nowMs);
  const applied = prepared.updates.map(({ pk }) => changed.has(pk));
  const postings: PostingInput[] = [];
  const unlinks: number[] = [];
  const history: TransferEventInput[] = [];
  const events: Array<TransitionWrites['events'][number]> = [];
  for (const i of prepared.order) {
    if (!applied[i]) continue;
    const w = prepared.writes[i]!;
    postings.push(...w.postings);
    if (w.unlink) unlinks.push(prepared.updates[i]!.pk);
    history.push(...w.history);
    events.push(...w.events);
  }
  // Sent together (pipelined on PostgreSQL); a refused posting throws and the caller's transaction takes all of it back.
  // The balances last: the merchant's balance rows are the ones every execute
  // of the API updates too, and from its update to the commit a row stays
  // locked; sent after the inserts, they are held for the commit alone.
  await Promise.all([
    ...unlinks.map((pk) => unlinkCharge(tx, pk, prepared.nowMs)),
    insertTransferEvents(tx, history),
    insertEvents(tx, events),
    postBatch(tx, postings).then((outcome) => {
      // In flight has no floor, so a refusal here means the ledger is broken: stop loudly.
      if (outcome !== 'posted') throw new Error(`transfers ${postings.map((p) => p.refId).join(', ')}: final postings were refused (${outcome})`);
    }),
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
