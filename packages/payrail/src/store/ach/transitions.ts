// The guarded state changes of an ACH entry (domain/ach.ts ACH_TRANSITIONS),
// each one write transaction with its ledger posting and its event: the
// entry moves only from the state the caller saw, so two processes applying
// the same news (a request and the worker, two workers) move it once, and
// the money with it. A stale move changes nothing and says where the entry
// is now.
//
// Money (domain/ledger.ts): a debit (check charge) accepted by the network
// sits in ach_pending; it reaches available when it settles; a void or a
// return before settlement gives it back to ach_payins; a return after
// settlement takes it back from available as far as the available balance's
// floor allows (check.return) and the rest from ach_returns_due
// (check.return_due: a bank return is a fact, never refused); a later check's
// settlement recovers what is owed there (check.returns_recover). A credit (refund, unmatched credit) is held from available
// when it is reserved (holdAchCredit) and released if the network refuses,
// voids or returns it.
import { type AchState, achTransitionAllowed } from '../../domain/ach.ts';
import { merchantAccount, type PostingKind } from '../../domain/ledger.ts';
import type { EventType } from '../../domain/webhooks.ts';
import { command, Refusal } from '../command.ts';
import type { Db, SqlValue, Tx } from '../db.ts';
import { type EventViews, emitTransactionEvent } from '../event-outbox.ts';
import { completeKey } from '../idempotency.ts';
import { getAccount, post } from '../ledger.ts';
import { getTransaction, type TransactionRow } from '../transactions.ts';
import { ACH_ENTRY_COLUMNS, type AchEntryRow, achEntryOf } from './entries.ts';

/** A move made, or refused because the entry is no longer where the caller saw it. */
export type AchMove =
  | { readonly kind: 'moved'; readonly entry: AchEntryRow; readonly row: TransactionRow }
  | { readonly kind: 'stale'; readonly state: AchState | null };

interface MoveBase {
  readonly chargePk: number;
  readonly merchantId: string;
  readonly nowMs: number;
  readonly views: EventViews;
  /** When the worker asks the network about the entry next; null: never again. */
  readonly nextCheckAtMs: number | null;
}

/** The network accepted the entry: submitting -> pending. A debit's amount goes to ach_pending. */
export function acceptAchEntry(db: Db, input: MoveBase & { networkRef: string; replyJson?: (row: TransactionRow) => string }): Promise<AchMove> {
  return move(db, input, ['submitting'], 'pending', { network_ref: input.networkRef }, async (tx, entry) => {
    await tx.run("UPDATE charges SET status = 'approved', processor_ref = ?, updated_at_ms = ? WHERE pk = ? AND status = 'pending'", [
      input.networkRef,
      input.nowMs,
      entry.charge_pk,
    ]);
    const isRefund = await isRefundRow(tx, entry.charge_pk);
    const row = await emit(tx, input, isRefund ? 'refund.succeeded' : 'charge.approved');
    await completeReply(tx, row, input.replyJson);
    if (entry.direction === 'debit') await postAch(tx, entry, 'check.accept', 'ach_payins', 'ach_pending', input.nowMs);
    return row;
  });
}

/** The network refused the entry: submitting -> declined or failed. A held credit goes back to the merchant. */
export function refuseAchEntry(
  db: Db,
  input: MoveBase & { outcome: 'declined' | 'failed'; errorCode: string; message: string; replyJson?: (row: TransactionRow) => string },
): Promise<AchMove> {
  const message = input.message.slice(0, 255);
  return move(db, input, ['submitting'], input.outcome, { decline_message: message }, async (tx, entry) => {
    await tx.run('UPDATE charges SET status = ?, error_code = ?, error_message = ?, updated_at_ms = ? WHERE pk = ? AND status = ?', [
      input.outcome,
      input.errorCode,
      message,
      input.nowMs,
      entry.charge_pk,
      'pending',
    ]);
    const isRefund = await isRefundRow(tx, entry.charge_pk);
    await releaseCredit(tx, entry, input.nowMs);
    const row = await emit(tx, input, isRefund ? 'refund.declined' : input.outcome === 'declined' ? 'charge.declined' : 'charge.failed');
    await completeReply(tx, row, input.replyJson);
    return row;
  });
}

/** Sent to the ACH network at a cut-off: pending -> originated. No money moves. */
export function originateAchEntry(db: Db, input: MoveBase & { originatedAtMs: number }): Promise<AchMove> {
  return move(db, input, ['pending'], 'originated', { originated_at_ms: input.originatedAtMs }, (tx) => emit(tx, input, 'charge.originated'));
}

/** The money arrived (a debit: ach_pending -> available) or left (a credit: already held): originated -> settled. */
export function settleAchEntry(db: Db, input: MoveBase & { settledAtMs: number }): Promise<AchMove> {
  return move(db, input, ['originated'], 'settled', { settled_at_ms: input.settledAtMs }, async (tx, entry) => {
    if (entry.direction === 'debit') {
      // What may now be refunded or fund a transfer, as a capture makes it for a card.
      await tx.run('UPDATE charges SET captured_cents = amount_cents, settled_at_ms = ?, updated_at_ms = ? WHERE pk = ?', [
        input.settledAtMs,
        input.nowMs,
        entry.charge_pk,
      ]);
    } else {
      await tx.run('UPDATE charges SET settled_at_ms = ?, updated_at_ms = ? WHERE pk = ?', [input.settledAtMs, input.nowMs, entry.charge_pk]);
    }
    const row = await emit(tx, input, 'charge.settled');
    if (entry.direction === 'debit') {
      await postAch(tx, entry, 'check.settle', 'ach_pending', 'available', input.nowMs);
      await recoverReturnsDue(tx, entry, input.nowMs);
    }
    return row;
  });
}

/**
 * The bank returned the entry with a NACHA code: pending, originated or
 * settled -> returned. A debit's money goes back to the bank from where it
 * is; a credit's comes back to the merchant.
 */
export function returnAchEntry(db: Db, input: MoveBase & { returnedAtMs: number; returnCode: string; returnReason: string }): Promise<AchMove> {
  const sets = { returned_at_ms: input.returnedAtMs, return_code: input.returnCode.slice(0, 8), return_reason: input.returnReason.slice(0, 255) };
  return move(db, input, ['pending', 'originated', 'settled'], 'returned', sets, async (tx, entry, from) => {
    if (entry.direction === 'debit') {
      // Nothing more of a returned check may be refunded: its refundable amount (captured - refunded - linked) becomes zero in
      // this transaction, on the row a refund's reservation guards (holdAchCredit), so the two never both commit.
      await tx.run('UPDATE charges SET captured_cents = refunded_cents, updated_at_ms = ? WHERE pk = ?', [input.nowMs, entry.charge_pk]);
    }
    const row = await emit(tx, input, 'charge.returned');
    if (entry.direction === 'credit') {
      await releaseCredit(tx, entry, input.nowMs);
      return row;
    }
    if (from !== 'settled') {
      await postAch(tx, entry, 'check.return', 'ach_pending', 'ach_payins', input.nowMs);
      await setReturnedFrom(tx, entry.charge_pk, 'ach_pending');
      return row;
    }
    // What the available balance's floor allows is taken from it (check.return); only the rest is owed (check.return_due).
    const available = await getAccount(tx, merchantAccount(entry.merchant_id, 'available'));
    const room =
      available === undefined ? 0 : available.floor_cents === null ? entry.amount_cents : Number(available.balance_cents) - Number(available.floor_cents);
    let coveredCents = Math.max(0, Math.min(entry.amount_cents, room));
    if (coveredCents > 0) {
      const fromAvailable = await post(tx, {
        kind: 'check.return',
        debitAccountId: merchantAccount(entry.merchant_id, 'available'),
        creditAccountId: merchantAccount(entry.merchant_id, 'ach_payins'),
        amountCents: coveredCents,
        merchantId: entry.merchant_id,
        refId: String(entry.charge_pk),
        nowMs: input.nowMs,
      });
      if (fromAvailable !== 'posted') coveredCents = 0;
    }
    const dueCents = entry.amount_cents - coveredCents;
    if (dueCents > 0) await postAch(tx, entry, 'check.return_due', 'ach_returns_due', 'ach_payins', input.nowMs, dueCents);
    await setReturnedFrom(tx, entry.charge_pk, dueCents > 0 ? 'ach_returns_due' : 'available');
    return row;
  });
}

/**
 * A void written before the network is asked: pending -> voiding. No money
 * moves, no event. It records when it was asked (service clock, and
 * `voidAskedAchMs` on the merchant's ACH clock, default the service clock):
 * a lost answer is asked again from then, with the first ask's ACH time.
 */
export function beginAchVoid(db: Db, input: MoveBase & { voidAskedAchMs?: number }): Promise<AchMove> {
  const sets = { void_asked_at_ms: input.nowMs, void_asked_ach_ms: input.voidAskedAchMs ?? input.nowMs };
  return move(db, input, ['pending'], 'voiding', sets, (tx, entry) => readRow(tx, entry.charge_pk, entry.merchant_id));
}

/** The network voided it: voiding -> voided. A debit's money goes back to the bank, a credit's to the merchant. */
export function finishAchVoid(db: Db, input: MoveBase): Promise<AchMove> {
  return move(db, input, ['voiding'], 'voided', {}, voidWork(input));
}

/**
 * The network reports a pending entry voided (Payrail did not ask, or the
 * network ended it without moving money): pending -> voided in one
 * command, with finishAchVoid's event and posting, so no crash leaves it
 * half way in 'voiding' for a void the network would refuse to repeat.
 */
export function applyNetworkVoidOf(db: Db, input: MoveBase): Promise<AchMove> {
  return move(db, input, ['pending'], 'voided', {}, voidWork(input));
}

function voidWork(input: MoveBase): MoveWork {
  return async (tx, entry) => {
    const row = await emit(tx, input, 'charge.voided');
    if (entry.direction === 'credit') await releaseCredit(tx, entry, input.nowMs);
    else await postAch(tx, entry, 'check.void', 'ach_pending', 'ach_payins', input.nowMs);
    return row;
  };
}

/** The network had originated it already: voiding -> pending, and the worker's next look moves it on. */
export function undoAchVoid(db: Db, input: MoveBase): Promise<AchMove> {
  return move(db, input, ['voiding'], 'pending', {}, (tx, entry) => readRow(tx, entry.charge_pk, entry.merchant_id));
}

/**
 * Holds a check refund's or credit's amount from the merchant's available
 * balance (available -> ach_payins), inside the transaction that reserves
 * it; a refund also counts against its charge's refundable amount, guarded
 * in the same statement that adds it, with the charge's entry still settled
 * (a return zeroes the refundable amount on the same row, so a return and a
 * refund racing never both commit). The caller rolls back on a refusal.
 */
export async function holdAchCredit(
  tx: Tx,
  input: { chargePk: number; merchantId: string; parentPk: number | null; amountCents: number; nowMs: number },
): Promise<'held' | 'exceeds_refundable' | 'below_floor'> {
  if (input.parentPk !== null) {
    const counted = await tx.run(
      `UPDATE charges SET refunded_cents = refunded_cents + ?, updated_at_ms = ?
       WHERE pk = ? AND merchant_id = ? AND payment_type = 'check' AND refunded_cents + linked_cents + ? <= captured_cents
         AND EXISTS (SELECT 1 FROM ach_entries pe WHERE pe.charge_pk = charges.pk AND pe.state = 'settled')`,
      [input.amountCents, input.nowMs, input.parentPk, input.merchantId, input.amountCents],
    );
    if (counted.changes !== 1) return 'exceeds_refundable';
  }
  const posted = await post(tx, {
    kind: 'check.credit_hold',
    debitAccountId: merchantAccount(input.merchantId, 'available'),
    creditAccountId: merchantAccount(input.merchantId, 'ach_payins'),
    amountCents: input.amountCents,
    merchantId: input.merchantId,
    refId: String(input.chargePk),
    nowMs: input.nowMs,
  });
  return posted === 'posted' ? 'held' : 'below_floor';
}

// ----------------------------------------------------------------------------

type MoveWork = (tx: Tx, entry: AchEntryRow, from: AchState) => Promise<TransactionRow>;

/** The guarded UPDATE of the entry, then `work` (its charge row, event, postings); a stale entry rolls nothing back, since nothing was written. */
function move(db: Db, input: MoveBase, from: readonly AchState[], to: AchState, sets: Readonly<Record<string, SqlValue>>, work: MoveWork): Promise<AchMove> {
  for (const state of from) if (!achTransitionAllowed(state, to)) throw new Error(`ACH entry cannot move from ${state} to ${to}`);
  const columns = Object.keys(sets);
  return command(db, async (tx): Promise<AchMove> => {
    // The state before the move, read in the statement that makes it (PostgreSQL's UPDATE ... RETURNING shows the new row only).
    const before = await tx.get<{ state: AchState }>(
      `SELECT state FROM ach_entries WHERE charge_pk = ? AND merchant_id = ? AND state IN (${from.map(() => '?').join(', ')})`,
      [input.chargePk, input.merchantId, ...from],
    );
    const updated =
      before === undefined
        ? undefined
        : await tx.get(
            `UPDATE ach_entries SET state = ?, ${columns.map((column) => `${column} = ?, `).join('')}next_check_at_ms = ?, lease_until_ms = 0, updated_at_ms = ?
             WHERE charge_pk = ? AND merchant_id = ? AND state = ? RETURNING ${ACH_ENTRY_COLUMNS}`,
            [to, ...columns.map((column) => sets[column]!), input.nextCheckAtMs, input.nowMs, input.chargePk, input.merchantId, before.state],
          );
    if (before === undefined || updated === undefined) {
      const current = await tx.get<{ state: AchState }>('SELECT state FROM ach_entries WHERE charge_pk = ? AND merchant_id = ?', [
        input.chargePk,
        input.merchantId,
      ]);
      throw new Refusal<AchMove>({ kind: 'stale', state: current?.state ?? null });
    }
    const entry = achEntryOf(updated);
    const row = await work(tx, entry, before.state);
    return { kind: 'moved', entry, row };
  });
}

async function isRefundRow(tx: Tx, chargePk: number): Promise<boolean> {
  const row = await tx.get<{ kind: string }>('SELECT kind FROM charges WHERE pk = ?', [chargePk]);
  return row?.kind === 'refund';
}

async function readRow(tx: Tx, chargePk: number, merchantId: string): Promise<TransactionRow> {
  const row = await getTransaction(tx, chargePk, merchantId);
  if (row === undefined) throw new Error(`check ${chargePk} vanished`);
  return row;
}

function emit(tx: Tx, input: MoveBase, type: EventType): Promise<TransactionRow> {
  return emitTransactionEvent(tx, input.views, type, input.merchantId, input.chargePk, input.nowMs);
}

/** The first answer of a reservation is the reply its Idempotency-Key keeps (a no-op for a key already answered). */
async function completeReply(tx: Tx, row: TransactionRow, replyJson: ((row: TransactionRow) => string) | undefined): Promise<void> {
  if (replyJson === undefined) return;
  const keyed = await tx.get<{ source_id: string; idem_key: string | null }>('SELECT source_id, idem_key FROM charges WHERE pk = ?', [row.pk]);
  if (keyed?.idem_key !== null && keyed?.idem_key !== undefined) await completeKey(tx, keyed.source_id, keyed.idem_key, 200, replyJson(row));
}

/**
 * A credit's hold goes back to the merchant, and a refund no longer counts
 * against its charge; of a returned charge, whose refundable amount stays
 * zero, the captured amount goes down with it (captured = refunded).
 */
async function releaseCredit(tx: Tx, entry: AchEntryRow, nowMs: number): Promise<void> {
  if (entry.direction !== 'credit') return;
  await tx.run(
    `UPDATE charges SET refunded_cents = refunded_cents - ?, updated_at_ms = ?,
       captured_cents = captured_cents - CASE WHEN EXISTS (SELECT 1 FROM ach_entries pe WHERE pe.charge_pk = charges.pk AND pe.state = 'returned') THEN ? ELSE 0 END
     WHERE pk = (SELECT parent_pk FROM charges r WHERE r.pk = ?)`,
    [entry.amount_cents, nowMs, entry.amount_cents, entry.charge_pk],
  );
  await postAch(tx, entry, 'check.credit_release', 'ach_payins', 'available', nowMs);
}

/**
 * What the merchant owes in ach_returns_due (returns its available balance
 * could not cover) is recovered from a settling check, up to its amount:
 * available -> ach_returns_due; a floor that refuses it leaves it owed.
 */
async function recoverReturnsDue(tx: Tx, entry: AchEntryRow, nowMs: number): Promise<void> {
  const due = await getAccount(tx, merchantAccount(entry.merchant_id, 'ach_returns_due'));
  const owedCents = due === undefined ? 0 : -Number(due.balance_cents);
  const recoverCents = Math.min(owedCents, entry.amount_cents);
  if (recoverCents <= 0) return;
  await post(tx, {
    kind: 'check.returns_recover',
    debitAccountId: merchantAccount(entry.merchant_id, 'available'),
    creditAccountId: merchantAccount(entry.merchant_id, 'ach_returns_due'),
    amountCents: recoverCents,
    merchantId: entry.merchant_id,
    refId: String(entry.charge_pk),
    nowMs,
  });
}

async function setReturnedFrom(tx: Tx, chargePk: number, from: 'ach_pending' | 'available' | 'ach_returns_due'): Promise<void> {
  await tx.run('UPDATE ach_entries SET returned_from = ? WHERE charge_pk = ?', [from, chargePk]);
}

/** A movement between two of the merchant's accounts that no floor refuses (ACH accounts have none; available is only ever credited here). */
async function postAch(
  tx: Tx,
  entry: AchEntryRow,
  kind: PostingKind,
  from: 'ach_payins' | 'ach_pending' | 'available' | 'ach_returns_due',
  to: 'ach_payins' | 'ach_pending' | 'available',
  nowMs: number,
  amountCents: number = entry.amount_cents,
): Promise<void> {
  const posted = await post(tx, {
    kind,
    debitAccountId: merchantAccount(entry.merchant_id, from),
    creditAccountId: merchantAccount(entry.merchant_id, to),
    amountCents,
    merchantId: entry.merchant_id,
    refId: String(entry.charge_pk),
    nowMs,
  });
  if (posted !== 'posted') throw new Error(`${kind} of check ${entry.charge_pk}: posting refused (${posted})`);
}
