// Reconciliation with the card processor (migration 024): the closed set of
// commands and reads its flow uses. The daily run claims its day with a
// lease (one statement, so two workers never both win), records what it
// found in one transaction with an audit event per new difference, and an
// operator resolves a difference with a note, audited in the same transaction.
import { type AuditNote, appendAudit, appendAuditNote } from '../audit-events.ts';
import { SYSTEM_ACTOR } from '../../domain/audit.ts';
import type { Difference, DifferenceKind, PayrailTransactionFact } from '../../domain/processor-reconciliation.ts';
import type { Db, SqlValue, Tx } from '../db.ts';
import { chunkSizes } from '../multi-row.ts';

/** A recorded difference, as the CLI and the panel show it. */
export interface DifferenceRow {
  readonly id: number;
  readonly day: string;
  readonly kind: DifferenceKind;
  readonly subject: string;
  readonly processor_batch_id: string | null;
  readonly processor_ref: string | null;
  readonly charge_pk: number | null;
  readonly merchant_id: string | null;
  readonly payrail_cents: number | null;
  readonly processor_cents: number | null;
  readonly detail: string;
  readonly found_at_ms: number;
  readonly seen_at_ms: number;
  readonly resolved_at_ms: number | null;
  readonly resolved_by: string | null;
  readonly resolution_note: string | null;
}

const DIFFERENCE_COLUMNS =
  'pk, day, kind, subject, processor_batch_id, processor_ref, charge_pk, merchant_id, payrail_cents, processor_cents, detail, found_at_ms, seen_at_ms, resolved_at_ms, resolved_by, resolution_note';

const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

function differenceRowOf(row: Record<string, unknown>): DifferenceRow {
  return {
    id: Number(row.pk),
    day: String(row.day),
    kind: row.kind as DifferenceKind,
    subject: String(row.subject),
    processor_batch_id: (row.processor_batch_id as string | null) ?? null,
    processor_ref: (row.processor_ref as string | null) ?? null,
    charge_pk: numberOrNull(row.charge_pk),
    merchant_id: (row.merchant_id as string | null) ?? null,
    payrail_cents: numberOrNull(row.payrail_cents),
    processor_cents: numberOrNull(row.processor_cents),
    detail: String(row.detail),
    found_at_ms: Number(row.found_at_ms),
    seen_at_ms: Number(row.seen_at_ms),
    resolved_at_ms: numberOrNull(row.resolved_at_ms),
    resolved_by: (row.resolved_by as string | null) ?? null,
    resolution_note: (row.resolution_note as string | null) ?? null,
  };
}

/**
 * Takes day `day` for a run until `leaseUntilMs`: the run's number (the
 * day's first is 1) when this caller may run it, null when it may not. A running day is taken only once its lease lapsed (its runner
 * died); a failed day once its retry time came (or at once with `force`); a
 * done day only with `force` (an operator's re-run).
 */
export async function claimReconciliationDay(
  db: Db,
  input: { day: string; processor: string; nowMs: number; leaseUntilMs: number; force: boolean },
): Promise<number | null> {
  const force = input.force ? 1 : 0;
  const row = await db.write((tx) =>
    tx.get<{ run_number: number | string }>(
      `INSERT INTO processor_reconciliation_runs (day, processor, status, lease_until_ms, run_number, started_at_ms) VALUES (?, ?, 'running', ?, 1, ?)
       ON CONFLICT (day) DO UPDATE SET processor = excluded.processor, status = 'running', lease_until_ms = excluded.lease_until_ms,
         run_number = processor_reconciliation_runs.run_number + 1,
         started_at_ms = excluded.started_at_ms, finished_at_ms = NULL, error = NULL
       WHERE (processor_reconciliation_runs.status = 'running' AND processor_reconciliation_runs.lease_until_ms <= ?)
          OR (processor_reconciliation_runs.status = 'failed' AND (processor_reconciliation_runs.lease_until_ms <= ? OR ? = 1))
          OR (processor_reconciliation_runs.status = 'done' AND ? = 1)
       RETURNING run_number`,
      [input.day, input.processor, input.leaseUntilMs, input.nowMs, input.nowMs, input.nowMs, force, force],
    ),
  );
  return row === undefined ? null : Number(row.run_number);
}

/** Where day `day`'s run stands; undefined when the day was never run. */
export async function reconciliationDayStatus(db: Db, day: string): Promise<'running' | 'done' | 'failed' | undefined> {
  const row = await db.read((tx) => tx.get<{ status: 'running' | 'done' | 'failed' }>('SELECT status FROM processor_reconciliation_runs WHERE day = ?', [day]));
  return row?.status;
}

/**
 * The days from `fromDay` to `toDay` (inclusive) the daily job may not claim
 * now (claimReconciliationDay without force): done, or running or failed
 * with their lease or retry time still to come.
 */
export async function unclaimableReconciliationDays(db: Db, input: { fromDay: string; toDay: string; nowMs: number }): Promise<Set<string>> {
  const rows = await db.read((tx) =>
    tx.all<{ day: string }>("SELECT day FROM processor_reconciliation_runs WHERE day >= ? AND day <= ? AND (status = 'done' OR lease_until_ms > ?)", [
      input.fromDay,
      input.toDay,
      input.nowMs,
    ]),
  );
  return new Set(rows.map((row) => String(row.day)));
}

/**
 * Gives a claimed day up after a failure; the daily job tries again from
 * `retryAtMs`. Only run `run` does: a run whose lease lapsed and was taken
 * over leaves the newer run's row alone.
 */
export async function failReconciliationDay(db: Db, input: { day: string; run: number; nowMs: number; retryAtMs: number; error: string }): Promise<void> {
  await db.write((tx) =>
    tx.run(
      "UPDATE processor_reconciliation_runs SET status = 'failed', lease_until_ms = ?, finished_at_ms = ?, error = ? WHERE day = ? AND status = 'running' AND run_number = ?",
      [input.retryAtMs, input.nowMs, input.error, input.day, input.run],
    ),
  );
}

/** Thrown (rolling the run's writes back) when a run's day was taken over by a later run after its lease lapsed. */
export class StaleReconciliationRun extends Error {
  constructor(day: string, run: number) {
    super(`run ${run} of ${day} lost its lease to a later run; nothing recorded`);
    this.name = 'StaleReconciliationRun';
  }
}

const TRANSACTION_COLUMNS = 'pk, merchant_id, kind, status, stage, captured_cents, amount_cents, processor_ref, batch_id';

function transactionFactOf(row: Record<string, unknown>): PayrailTransactionFact {
  const kind = row.kind === 'refund' ? 'refund' : 'charge';
  return {
    pk: Number(row.pk),
    merchantId: String(row.merchant_id),
    kind,
    status: String(row.status),
    stage: (row.stage as string | null) ?? null,
    // As the batch totals count them (store/batches.ts): a charge's captured amount, a refund's amount.
    settledCents: Number(kind === 'charge' ? row.captured_cents : row.amount_cents),
    processorRef: (row.processor_ref as string | null) ?? null,
    batchId: numberOrNull(row.batch_id),
  };
}

/** Looks rows up by `column IN (...)` in chunks of fixed sizes (few statement texts). */
async function readIn(tx: Tx, column: 'processor_ref' | 'pk', values: readonly SqlValue[]): Promise<PayrailTransactionFact[]> {
  const facts: PayrailTransactionFact[] = [];
  let at = 0;
  for (const size of chunkSizes(values.length)) {
    const chunk = values.slice(at, at + size);
    at += size;
    // Checks are the ACH network's business, never the card processor's (their network ids are not card processor ids).
    const rows = await tx.all(
      `SELECT ${TRANSACTION_COLUMNS} FROM charges WHERE ${column} IN (${chunk.map(() => '?').join(', ')}) AND payment_type = 'card' ORDER BY pk`,
      chunk,
    );
    facts.push(...rows.map(transactionFactOf));
  }
  return facts;
}

/** Payrail's card transactions carrying these processor ids (the first by pk where several do). */
export async function transactionsByProcessorRef(db: Db, refs: readonly string[]): Promise<Map<string, PayrailTransactionFact>> {
  const facts = await db.read((tx) => readIn(tx, 'processor_ref', refs));
  const byRef = new Map<string, PayrailTransactionFact>();
  for (const fact of facts) if (fact.processorRef !== null && !byRef.has(fact.processorRef)) byRef.set(fact.processorRef, fact);
  return byRef;
}

/** Payrail's card transactions of these primary keys (charges and refunds share them). */
export async function transactionsByPk(db: Db, pks: readonly number[]): Promise<Map<number, PayrailTransactionFact>> {
  const facts = await db.read((tx) => readIn(tx, 'pk', pks));
  return new Map(facts.map((fact) => [fact.pk, fact]));
}

/** Transactions Payrail settled from `fromMs` (inclusive) to `toMs` (exclusive), at most `limit`, by pk. */
export async function settledTransactions(db: Db, input: { fromMs: number; toMs: number; limit: number }): Promise<PayrailTransactionFact[]> {
  const rows = await db.read((tx) =>
    tx.all(
      `SELECT ${TRANSACTION_COLUMNS} FROM charges WHERE settled_at_ms >= ? AND settled_at_ms < ? AND stage = 'settled' AND payment_type = 'card' ORDER BY pk LIMIT ?`,
      [input.fromMs, input.toMs, input.limit],
    ),
  );
  return rows.map(transactionFactOf);
}

export interface RecordedRun {
  /** Differences recorded for the first time by this run. */
  readonly added: number;
  /** Open differences of the day this run no longer found, now resolved by the run. */
  readonly cleared: number;
  /** Open differences of the day after the run. */
  readonly open: number;
}

/**
 * Records a day's run: each difference is added (and audited as
 * reconciliation.difference_found) or, when the day already has it open,
 * updated; an open difference the run no longer finds is resolved by the
 * run (unless the list was cut short, when absence proves nothing). A
 * difference an operator resolved stays resolved when found again.
 */
export async function recordReconciliationDay(
  db: Db,
  input: {
    day: string;
    /** The run's number, from claimReconciliationDay. */
    run: number;
    nowMs: number;
    differences: readonly Difference[];
    complete: boolean;
    counts: { processorBatches: number; processorTransactions: number; payrailTransactions: number };
  },
): Promise<RecordedRun> {
  return db.write(async (tx) => {
    // First, so that a stale run (its lease lapsed and a later run took the
    // day) changes nothing: no row updated, and the throw rolls back.
    const marked = await tx.run(
      `UPDATE processor_reconciliation_runs SET status = 'done', lease_until_ms = ?, finished_at_ms = ?, processor_batches = ?, processor_transactions = ?,
         payrail_transactions = ?, differences_found = ?, error = NULL
       WHERE day = ? AND status = 'running' AND run_number = ?`,
      [
        input.nowMs,
        input.nowMs,
        input.counts.processorBatches,
        input.counts.processorTransactions,
        input.counts.payrailTransactions,
        input.differences.length,
        input.day,
        input.run,
      ],
    );
    if (marked.changes === 0) throw new StaleReconciliationRun(input.day, input.run);
    let added = 0;
    for (const d of input.differences) {
      const values = [d.processorBatchId, d.processorRef, d.chargePk, d.merchantId, d.payrailCents, d.processorCents, d.detail];
      const pk = await tx.insert(
        `INSERT INTO processor_differences (day, kind, subject, processor_batch_id, processor_ref, charge_pk, merchant_id, payrail_cents, processor_cents, detail, found_at_ms, seen_at_ms, seen_run)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [input.day, d.kind, d.subject, ...values, input.nowMs, input.nowMs, input.run],
        'day, kind, subject',
      );
      if (pk === null) {
        await tx.run(
          `UPDATE processor_differences SET processor_batch_id = ?, processor_ref = ?, charge_pk = ?, merchant_id = ?, payrail_cents = ?, processor_cents = ?, detail = ?, seen_at_ms = ?, seen_run = ?,
             resolved_at_ms = NULL, resolved_by = NULL, resolution_note = NULL
           WHERE day = ? AND kind = ? AND subject = ? AND (resolved_at_ms IS NULL OR resolved_by = 'reconciliation')`,
          [...values, input.nowMs, input.run, input.day, d.kind, d.subject],
        );
        continue;
      }
      added += 1;
      const event = {
        action: 'reconciliation.difference_found' as const,
        target: `processor difference ${pk}`,
        merchantId: d.merchantId,
        detail: `${input.day} ${d.kind}: ${d.detail}`,
      };
      await appendAudit(tx, SYSTEM_ACTOR, event, 'success', input.nowMs);
    }
    const cleared = input.complete
      ? (
          await tx.run(
            `UPDATE processor_differences SET resolved_at_ms = ?, resolved_by = 'reconciliation', resolution_note = 'no longer found when the day was reconciled again'
             WHERE day = ? AND resolved_at_ms IS NULL AND seen_run < ?`,
            [input.nowMs, input.day, input.run],
          )
        ).changes
      : 0;
    const open = await tx.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM processor_differences WHERE day = ? AND resolved_at_ms IS NULL', [input.day]);
    return { added, cleared, open: Number(open?.n ?? 0) };
  });
}

export type ResolveResult = { readonly status: 'resolved'; readonly row: DifferenceRow } | { readonly status: 'not_found' | 'already_resolved' };

/** Marks open difference `id` resolved by `by` with `note`, and appends the action's audit event in the same transaction. */
export async function resolveDifference(db: Db, input: { id: number; note: string; by: string; audit: AuditNote }): Promise<ResolveResult> {
  return db.write(async (tx) => {
    const row = await tx.get(
      `UPDATE processor_differences SET resolved_at_ms = ?, resolved_by = ?, resolution_note = ? WHERE pk = ? AND resolved_at_ms IS NULL RETURNING ${DIFFERENCE_COLUMNS}`,
      [input.audit.atMs, input.by, input.note, input.id],
    );
    if (row === undefined) {
      const exists = await tx.get('SELECT pk FROM processor_differences WHERE pk = ?', [input.id]);
      return { status: exists === undefined ? 'not_found' : 'already_resolved' };
    }
    const resolved = differenceRowOf(row);
    await appendAuditNote(tx, input.audit, { merchantId: resolved.merchant_id });
    return { status: 'resolved', row: resolved };
  });
}

export interface DifferenceFilters {
  /** Open only (true), resolved only (false), or both (null). */
  readonly open: boolean | null;
  readonly day: string | null;
}

/** Differences matching the filters, newest first, at most `limit` from `offset`. */
export async function differencePage(db: Db, input: { filters: DifferenceFilters; limit: number; offset: number }): Promise<DifferenceRow[]> {
  const where: string[] = [];
  const params: SqlValue[] = [];
  if (input.filters.open !== null) where.push(input.filters.open ? 'resolved_at_ms IS NULL' : 'resolved_at_ms IS NOT NULL');
  if (input.filters.day !== null) {
    where.push('day = ?');
    params.push(input.filters.day);
  }
  const rows = await db.read((tx) =>
    tx.all(
      `SELECT ${DIFFERENCE_COLUMNS} FROM processor_differences ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`} ORDER BY pk DESC LIMIT ? OFFSET ?`,
      [...params, input.limit, input.offset],
    ),
  );
  return rows.map(differenceRowOf);
}

/** How many differences are open (ledger verify reports it). */
export async function openDifferenceCount(db: Db): Promise<number> {
  const row = await db.read((tx) => tx.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM processor_differences WHERE resolved_at_ms IS NULL'));
  return Number(row?.n ?? 0);
}
