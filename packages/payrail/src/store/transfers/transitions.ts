// The writes of transfer state changes (prepared, events rendered, by
// flows/transfers/transitions.ts), in a command's transaction: the guarded
// row updates, the ledger postings of final states, the release of a failed
// transfer's payin link, the history rows and the events. Every command that
// changes a transfer's state writes through here.
import type { PostingInput } from '../../domain/ledger.ts';
import type { Tx } from '../db.ts';
import { insertEvents } from '../events.ts';
import { postBatch } from '../ledger.ts';
import { applyChanges, insertTransferEvents, type TransferChange, type TransferEventInput, type TransferRow, unlinkCharge } from '../transfers.ts';

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

/** Everything a batch of transitions writes, decided before its transaction (flows/transfers/transitions.ts). */
export interface PreparedTransitions {
  /** The guarded row updates, one per transition, in the batch's order. */
  readonly updates: ReadonlyArray<{ readonly pk: number; readonly version: number; readonly change: TransferChange }>;
  /** What each transition writes if its row is still at its version; the batch's indexes in pk order. */
  readonly writes: ReadonlyArray<TransitionWrites>;
  readonly order: readonly number[];
  readonly nowMs: number;
}

export interface TransitionWrites {
  readonly postings: readonly PostingInput[];
  readonly unlink: boolean;
  readonly history: readonly TransferEventInput[];
  readonly events: ReadonlyArray<{ readonly merchantId: string; readonly type: string; readonly dataJson: string; readonly nowMs: number }>;
}

/** Pure (given to commands that decide a transition inside their transaction): a batch's writes, events rendered. */
export type PrepareTransitions = (batch: readonly TransitionOf[], nowMs: number) => PreparedTransitions;

/**
 * Applies the transitions of a batch in the caller's transaction, set-based:
 * the rows' guarded UPDATEs by multi-row statements (each row still guarded
 * by its own version, so a row someone else changed drops only its own
 * transition), the ledger postings of every final state as one batch, the
 * history rows and the events each by multi-row INSERT. Returns, per
 * transition, whether it was applied.
 */
export async function applyTransitions(tx: Tx, prepared: PreparedTransitions): Promise<boolean[]> {
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

/**
 * One change of one transfer. Returns false, having written nothing, when
 * the row is no longer at the version it was read at (another worker, an
 * operator or an invitation got there first).
 */
export async function applyTransition(
  tx: Tx,
  prepare: PrepareTransitions,
  row: TransferRow,
  change: TransferChange,
  note: string | null,
  nowMs: number,
): Promise<boolean> {
  const [applied] = await applyTransitions(tx, prepare([{ row, changes: [{ change, note }] }], nowMs));
  return applied!;
}
