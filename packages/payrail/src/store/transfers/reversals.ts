// Reversals of completed payouts (flows/transfers/reversals.ts): reported,
// then confirmed or rejected, each in one transaction. The transfer row is
// final and stays so; these commands write only its `reversal` mark (what
// its status shows). Every decision is guarded by the reversal's state in
// the UPDATE itself (WHERE state = 'reported'), so two confirms that race
// (two operators, two processes) credit the merchant once: the second finds
// nothing to change and writes nothing.
import type { PostingInput } from '../../domain/ledger.ts';
import { type ReversalSource, type ReversalState, reversalMarkOf } from '../../domain/transfer-reversals.ts';
import { STATE } from '../../domain/transfer-states.ts';
import { type AuditNote, appendAuditNote } from '../audit-events.ts';
import { command } from '../command.ts';
import type { Db, Tx } from '../db.ts';
import { insertEvents, type NewEvent } from '../events.ts';
import { post } from '../ledger.ts';
import { TRANSFER_COLUMNS, type TransferRow } from '../transfers.ts';

export interface ReversalRow {
  transfer_pk: number;
  merchant_id: string;
  transfer_id: string;
  amount_cents: number;
  source: ReversalSource;
  network_error_code: string;
  network_error_text: string;
  state: ReversalState;
  reported_at_ms: number;
  reported_by: string;
  decided_at_ms: number | null;
  decided_by: string | null;
  decision_note: string | null;
}

const REVERSAL_COLUMNS =
  'transfer_pk, merchant_id, transfer_id, amount_cents, source, network_error_code, network_error_text, state, reported_at_ms, reported_by, decided_at_ms, decided_by, decision_note';

/** Which transfer: by its key (a callback found it), or as its merchant names it (an operator). */
export type TransferTarget = { readonly pk: number } | { readonly merchantId: string; readonly transferId: string };

function readTarget(tx: Tx, target: TransferTarget): Promise<TransferRow | undefined> {
  return 'pk' in target
    ? tx.get<TransferRow>(`SELECT ${TRANSFER_COLUMNS} FROM transfers WHERE pk = ?`, [target.pk])
    : tx.get<TransferRow>(`SELECT ${TRANSFER_COLUMNS} FROM transfers WHERE merchant_id = ? AND id = ?`, [target.merchantId, target.transferId]);
}

function readReversal(tx: Tx, transferPk: number): Promise<ReversalRow | undefined> {
  return tx.get<ReversalRow>(`SELECT ${REVERSAL_COLUMNS} FROM transfer_reversals WHERE transfer_pk = ?`, [transferPk]);
}

/** Sets the mark the transfer's status shows; the row is final, so no worker or operator change can race it. */
async function markTransfer(tx: Tx, pk: number, state: ReversalState, nowMs: number): Promise<void> {
  await tx.run('UPDATE transfers SET reversal = ?, version = version + 1, updated_at_ms = ? WHERE pk = ?', [reversalMarkOf(state), nowMs, pk]);
}

export type ReportAnswer =
  /** Recorded now (new, or an operator reopened a rejected one). */
  | { readonly kind: 'reported'; readonly transfer: TransferRow; readonly reversal: ReversalRow }
  /** The transfer has a reversal already (a replayed callback, a second report): nothing changed. */
  | { readonly kind: 'already'; readonly transfer: TransferRow; readonly reversal: ReversalRow }
  | { readonly kind: 'not_found' }
  /** Only a payout that completed (60) can be reversed. */
  | { readonly kind: 'not_paid_out'; readonly transfer: TransferRow };

export function reportReversal(
  db: Db,
  input: {
    readonly target: TransferTarget;
    readonly source: ReversalSource;
    readonly errorCode: string;
    readonly errorText: string;
    readonly reportedBy: string;
    /** An operator's report reopens a reversal an operator rejected; a network's (a replay) never does. */
    readonly reopenRejected: boolean;
    readonly nowMs: number;
    readonly audit: AuditNote;
  },
): Promise<ReportAnswer> {
  return command(db, async (tx): Promise<ReportAnswer> => {
    const transfer = await readTarget(tx, input.target);
    if (transfer === undefined) return { kind: 'not_found' };
    if (transfer.final !== 1 || transfer.state !== STATE.succeeded) return { kind: 'not_paid_out', transfer };
    const inserted = await tx.run(
      `INSERT INTO transfer_reversals (transfer_pk, merchant_id, transfer_id, amount_cents, source, network_error_code, network_error_text, state,
         reported_at_ms, reported_by) VALUES (?, ?, ?, ?, ?, ?, ?, 'reported', ?, ?)
       ON CONFLICT (transfer_pk) DO NOTHING`,
      [
        transfer.pk,
        transfer.merchant_id,
        transfer.id,
        Number(transfer.amount_cents),
        input.source,
        input.errorCode,
        input.errorText,
        input.nowMs,
        input.reportedBy,
      ],
    );
    let changed = inserted.changes === 1;
    if (!changed && input.reopenRejected) {
      const reopened = await tx.run(
        `UPDATE transfer_reversals SET state = 'reported', source = ?, network_error_code = ?, network_error_text = ?, reported_at_ms = ?, reported_by = ?,
           decided_at_ms = NULL, decided_by = NULL, decision_note = NULL
         WHERE transfer_pk = ? AND state = 'rejected'`,
        [input.source, input.errorCode, input.errorText, input.nowMs, input.reportedBy, transfer.pk],
      );
      changed = reopened.changes === 1;
    }
    const reversal = (await readReversal(tx, transfer.pk))!;
    if (!changed) return { kind: 'already', transfer, reversal };
    await markTransfer(tx, transfer.pk, 'reported', input.nowMs);
    await appendAuditNote(tx, input.audit, { merchantId: transfer.merchant_id, target: input.audit.event.target ?? transfer.id });
    return { kind: 'reported', transfer, reversal };
  });
}

export type DecideAnswer =
  | { readonly kind: 'decided'; readonly transfer: TransferRow; readonly reversal: ReversalRow }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'no_reversal'; readonly transfer: TransferRow }
  /** Decided already (by this operator a moment ago, or another): nothing changed. */
  | { readonly kind: 'not_reported'; readonly transfer: TransferRow; readonly reversal: ReversalRow };

/**
 * Confirms or rejects a reported reversal. A confirmation, in the same
 * transaction: the guarded state change, the posting paid_out -> available
 * for the reversal's amount, the transfer's mark, its `transfer.reversed`
 * event (rendered by the flow from the row as it ends) and the audit row.
 */
export function decideReversal(
  db: Db,
  input: {
    readonly merchantId: string;
    readonly transferId: string;
    readonly decision: 'confirmed' | 'rejected';
    readonly note: string | null;
    readonly decidedBy: string;
    readonly nowMs: number;
    /** The posting of a confirmation, for the reversal's amount. */
    readonly posting: (transfer: TransferRow, amountCents: number) => PostingInput;
    /** The event of a confirmation, from the transfer row with its new mark. */
    readonly event: (transfer: TransferRow) => NewEvent;
    readonly audit: AuditNote;
  },
): Promise<DecideAnswer> {
  return command(db, async (tx): Promise<DecideAnswer> => {
    const transfer = await readTarget(tx, input);
    if (transfer === undefined) return { kind: 'not_found' };
    const decided = await tx.run(
      `UPDATE transfer_reversals SET state = ?, decided_at_ms = ?, decided_by = ?, decision_note = ? WHERE transfer_pk = ? AND state = 'reported'`,
      [input.decision, input.nowMs, input.decidedBy, input.note, transfer.pk],
    );
    const reversal = await readReversal(tx, transfer.pk);
    if (reversal === undefined) return { kind: 'no_reversal', transfer };
    if (decided.changes !== 1) return { kind: 'not_reported', transfer, reversal };
    await markTransfer(tx, transfer.pk, input.decision, input.nowMs);
    await appendAuditNote(tx, input.audit, { merchantId: transfer.merchant_id });
    if (input.decision === 'confirmed') {
      await insertEvents(tx, [input.event(transfer)]);
      // The balances last: every execute of the merchant updates them too, and they stay locked until the commit.
      const outcome = await post(tx, input.posting(transfer, Number(reversal.amount_cents)));
      // Paid out has no floor: a refusal means the ledger is broken. Nothing of this decision is kept.
      if (outcome !== 'posted') throw new Error(`transfer ${transfer.pk}: the reversal's posting was refused (${outcome})`);
    }
    return { kind: 'decided', transfer, reversal };
  });
}

/** Reversals in `state` (any when null), newest report first. */
export function listReversals(db: Db, query: { readonly state: ReversalState | null; readonly limit: number }): Promise<ReversalRow[]> {
  return db.read((tx) =>
    query.state === null
      ? tx.all<ReversalRow>(`SELECT ${REVERSAL_COLUMNS} FROM transfer_reversals ORDER BY reported_at_ms DESC, transfer_pk DESC LIMIT ?`, [query.limit])
      : tx.all<ReversalRow>(`SELECT ${REVERSAL_COLUMNS} FROM transfer_reversals WHERE state = ? ORDER BY reported_at_ms DESC, transfer_pk DESC LIMIT ?`, [
          query.state,
          query.limit,
        ]),
  );
}

/** One transfer's reversal, if it has one. */
export function reversalOf(db: Db, transferPk: number): Promise<ReversalRow | undefined> {
  return db.read((tx) => readReversal(tx, transferPk));
}
