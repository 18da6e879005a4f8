// Reconciliation with the card processor (issue 36): once a day Payrail
// compares the batches the processor settled on a UTC day (its
// ProcessorSettlements, providers/card-settlements.ts) with the transactions
// Payrail settled, and records every difference (domain/processor-reconciliation.ts)
// until an operator resolves it. It never changes a payment or the ledger.
//
// The processor's batches of the day before are read too: a transaction
// captured after Payrail's daily close (PAYRAIL_BATCH_CLOSE_UTC) but before
// the processor's cut-off is settled by the processor a day before Payrail
// settles it, and is not missing. (This assumes Payrail's close falls at or
// before the processor's cut-off within the UTC day, as the default 00:00
// does with Authorize.net's afternoon (US time) cut-off.)
//
// Differences are operator matters, so they are recorded in the audit trail
// (reconciliation.difference_found, actor system) and logged, not sent as
// merchant events: events and webhooks belong to one merchant, and a
// processor batch belongs to none.
import { DAY_MS } from '../../domain/clock.ts';
import type { AuditActor } from '../../domain/audit.ts';
import { dayOf, dayStartMs, findDifferences, type PayrailTransactionFact, type ProcessorBatchFact } from '../../domain/processor-reconciliation.ts';
import type { ProviderKeys } from '../../domain/provider-keys.ts';
import { fail } from '../../errors.ts';
import type { CardProcessor } from '../../providers/card-processor.ts';
import type { Service } from '../../service.ts';
import {
  claimReconciliationDay,
  type DifferenceFilters,
  type DifferenceRow,
  differencePage,
  failReconciliationDay,
  reconciliationDayStatus,
  recordReconciliationDay,
  resolveDifference,
  StaleReconciliationRun,
  settledTransactions,
  transactionsByPk,
  transactionsByProcessorRef,
  unclaimableReconciliationDays,
} from '../../store/operations/processor-reconciliation.ts';
import { type AuditDeps, audited, recordAudit, SYSTEM_ACTOR } from './audit.ts';

export type { DifferenceRow };

/** How long a run may hold its day before another worker may take it over (it reads a day of batches, then writes once). */
export const RUN_LEASE_MS = 15 * 60_000;
/** How long the processor has to list a day's batches. */
export const SETTLEMENTS_TIMEOUT_MS = 120_000;
/** After a failed run, the daily job tries the day again this much later. */
export const RETRY_AFTER_MS = 30 * 60_000;
/** A run reads at most this many processor transactions (two days) and as many Payrail ones; more fails the run loudly. */
export const TRANSACTIONS_PER_RUN_MAX = 200_000;
/** A run records at most this many differences; past it the run says so and leaves the day's other open ones as they are. */
export const DIFFERENCES_PER_RUN_MAX = 1_000;
/** Longest resolution note kept. */
export const NOTE_LENGTH_MAX = 500;
/** Longest error text kept with a failed run. */
const ERROR_LENGTH_MAX = 300;

export interface ReconcileDeps extends AuditDeps {
  readonly log: Service['log'];
  readonly processor: Pick<CardProcessor, 'name' | 'settlements'>;
  /** Reads Payrail's provider keys back (the processor's `reference`), for transactions matched by neither processor id. */
  readonly providerKeys: ProviderKeys;
}

export function reconcileDepsOf(service: Service): ReconcileDeps {
  return { db: service.db, clock: service.clock, log: service.log, processor: service.providers.cardProcessor, providerKeys: service.providerKeys };
}

export type ReconcileOutcome =
  | { readonly status: 'no_settlements'; readonly processor: string }
  | { readonly status: 'skipped'; readonly day: string; readonly reason: 'done' | 'running' | 'retry_later' }
  | { readonly status: 'failed'; readonly day: string; readonly error: string }
  | {
      readonly status: 'done';
      readonly day: string;
      readonly processorBatches: number;
      readonly processorTransactions: number;
      readonly payrailTransactions: number;
      readonly differences: number;
      readonly added: number;
      readonly cleared: number;
      readonly open: number;
      /** False when more differences were found than a run records. */
      readonly complete: boolean;
    };

/** The day reconciled by default: yesterday (UTC) on the service clock. */
export function defaultDay(nowMs: number): string {
  return dayOf(nowMs - DAY_MS);
}

/**
 * The day the daily job reconciles next: the oldest of the last
 * `lookbackDays` ended days (yesterday only from `yesterdayFromMs` into
 * today) that is neither done nor held by a run's lease or a failed run's
 * retry time; null when there is none.
 */
export async function dayToReconcile(
  deps: Pick<ReconcileDeps, 'db'>,
  input: { nowMs: number; lookbackDays: number; yesterdayFromMs: number },
): Promise<string | null> {
  const newest = input.nowMs % DAY_MS < input.yesterdayFromMs ? 2 : 1;
  const days: string[] = [];
  for (let back = input.lookbackDays; back >= newest; back--) days.push(dayOf(input.nowMs - back * DAY_MS));
  if (days.length === 0) return null;
  const unclaimable = await unclaimableReconciliationDays(deps.db, { fromDay: days[0]!, toDay: days[days.length - 1]!, nowMs: input.nowMs });
  return days.find((day) => !unclaimable.has(day)) ?? null;
}

/** Parses --date: a real UTC date before today. */
export function parseDay(text: string, nowMs: number): string {
  const startMs = dayStartMs(text);
  if (startMs === null) fail('invalid_request', 'the date must be a real date written YYYY-MM-DD');
  if (startMs + DAY_MS > nowMs) fail('invalid_request', 'only a day that has ended can be reconciled');
  return text;
}

/**
 * Reconciles day `day` (YYYY-MM-DD, UTC). `force` re-runs a day already
 * done (the CLI); the daily job never does. A re-run updates the day's rows
 * and resolves the open ones it no longer finds, so it never duplicates.
 * `signal` (the worker stopping) aborts the processor's listing: the run
 * fails and is retried later. A run whose lease lapsed and whose day a later
 * run took over records nothing and is skipped as running.
 */
export async function reconcileProcessorDay(deps: ReconcileDeps, input: { day: string; force: boolean; signal?: AbortSignal }): Promise<ReconcileOutcome> {
  const settlements = deps.processor.settlements;
  if (settlements === undefined) return { status: 'no_settlements', processor: deps.processor.name };
  const fromMs = dayStartMs(input.day);
  if (fromMs === null) throw new Error(`not a day: ${input.day}`);
  const startedMs = deps.clock.nowMs();
  const run = await claimReconciliationDay(deps.db, {
    day: input.day,
    processor: deps.processor.name,
    nowMs: startedMs,
    leaseUntilMs: startedMs + RUN_LEASE_MS,
    force: input.force,
  });
  if (run === null) {
    const status = await reconciliationDayStatus(deps.db, input.day);
    return { status: 'skipped', day: input.day, reason: status === 'done' ? 'done' : status === 'failed' ? 'retry_later' : 'running' };
  }
  try {
    const timeout = AbortSignal.timeout(SETTLEMENTS_TIMEOUT_MS);
    const signal = input.signal === undefined ? timeout : AbortSignal.any([timeout, input.signal]);
    const batches = await settlements.settledBatches({ fromMs: fromMs - DAY_MS, toMs: fromMs + DAY_MS, signal });
    input.signal?.throwIfAborted();
    return await compareAndRecord(deps, { day: input.day, run, fromMs }, batches);
  } catch (error) {
    if (error instanceof StaleReconciliationRun) {
      deps.log.warn({ day: input.day, run }, error.message);
      return { status: 'skipped', day: input.day, reason: 'running' };
    }
    const text = (error instanceof Error ? error.message : String(error)).slice(0, ERROR_LENGTH_MAX);
    const nowMs = deps.clock.nowMs();
    await failReconciliationDay(deps.db, { day: input.day, run, nowMs, retryAtMs: nowMs + RETRY_AFTER_MS, error: text });
    await recordAudit(deps, SYSTEM_ACTOR, { action: 'reconciliation.run', target: `day ${input.day}`, detail: `failed: ${text}` }, 'failure');
    deps.log.error({ day: input.day, err: text }, 'processor reconciliation failed; the daily job tries again later');
    return { status: 'failed', day: input.day, error: text };
  }
}

async function compareAndRecord(
  deps: ReconcileDeps,
  { day, run, fromMs }: { day: string; run: number; fromMs: number },
  all: readonly ProcessorBatchFact[],
): Promise<ReconcileOutcome> {
  const batches = all.filter((b) => b.settledAtMs >= fromMs && b.settledAtMs < fromMs + DAY_MS);
  const previousBatches = all.filter((b) => b.settledAtMs < fromMs);
  const transactions = all.flatMap((b) => b.transactions);
  if (transactions.length > TRANSACTIONS_PER_RUN_MAX) throw new Error(`the processor listed ${transactions.length} transactions, more than a run reads`);
  const matched = await matchTransactions(deps, transactions);
  const payrailSettled = await settledTransactions(deps.db, { fromMs, toMs: fromMs + DAY_MS, limit: TRANSACTIONS_PER_RUN_MAX + 1 });
  if (payrailSettled.length > TRANSACTIONS_PER_RUN_MAX) throw new Error(`Payrail settled more than ${TRANSACTIONS_PER_RUN_MAX} transactions that day`);
  const found = findDifferences({ batches, previousBatches, matched, payrailSettled });
  const complete = found.length <= DIFFERENCES_PER_RUN_MAX;
  const nowMs = deps.clock.nowMs();
  const counts = {
    processorBatches: batches.length,
    processorTransactions: batches.reduce((n, b) => n + b.transactions.length, 0),
    payrailTransactions: payrailSettled.length,
  };
  const recorded = await recordReconciliationDay(deps.db, { day, run, nowMs, differences: found.slice(0, DIFFERENCES_PER_RUN_MAX), complete, counts });
  const summary = `${counts.processorBatches} processor batch(es), ${counts.processorTransactions} processor and ${counts.payrailTransactions} Payrail transaction(s): ${found.length} difference(s), ${recorded.added} new, ${recorded.cleared} cleared, ${recorded.open} open${complete ? '' : ` (only the first ${DIFFERENCES_PER_RUN_MAX} recorded)`}`;
  await recordAudit(deps, SYSTEM_ACTOR, { action: 'reconciliation.run', target: `day ${day}`, detail: summary }, 'success');
  if (recorded.open > 0)
    deps.log.warn({ day, open: recorded.open, added: recorded.added }, 'processor reconciliation found differences: payrail reconcile differences --open');
  else deps.log.info({ day }, 'processor reconciliation found no difference');
  return { status: 'done', day, ...counts, differences: found.length, ...recorded, complete };
}

/** The Payrail transaction of each processor transaction: by processor id, else by the provider key it carried. */
async function matchTransactions(
  deps: ReconcileDeps,
  transactions: ReadonlyArray<ProcessorBatchFact['transactions'][number]>,
): Promise<Map<string, PayrailTransactionFact>> {
  const matched = await transactionsByProcessorRef(deps.db, [...new Set(transactions.map((t) => t.processorRef))]);
  const keys = deps.providerKeys;
  const byKey = new Map<string, number>();
  for (const t of transactions) {
    if (matched.has(t.processorRef) || t.reference === null) continue;
    const parsed = keys.parse(t.reference);
    if (parsed !== null && parsed.kind === 'charge') byKey.set(t.processorRef, parsed.pk);
  }
  if (byKey.size === 0) return matched;
  const rows = await transactionsByPk(deps.db, [...new Set(byKey.values())]);
  for (const [ref, pk] of byKey) {
    const row = rows.get(pk);
    if (row !== undefined) matched.set(ref, row);
  }
  return matched;
}

/** Differences for the CLI and the panel, newest first. */
export async function listDifferences(deps: AuditDeps, input: { filters: DifferenceFilters; limit: number; offset: number }): Promise<DifferenceRow[]> {
  return differencePage(deps.db, input);
}

/** An operator resolves open difference `id` with a note (what was found, what was done); audited as reconciliation.resolve. */
export async function resolveProcessorDifference(deps: AuditDeps, input: { id: number; note: string }, actor: AuditActor): Promise<DifferenceRow> {
  const note = input.note.trim();
  const event = { action: 'reconciliation.resolve' as const, target: `processor difference ${input.id}`, detail: note.slice(0, NOTE_LENGTH_MAX) };
  return audited(deps, actor, event, async (audit) => {
    if (note.length === 0) fail('invalid_request', 'a resolution needs a note saying what was found and done');
    if (note.length > NOTE_LENGTH_MAX) fail('invalid_request', `the note is longer than ${NOTE_LENGTH_MAX} characters`);
    const by = actor.label ?? actor.id ?? actor.kind;
    const result = await resolveDifference(deps.db, { id: input.id, note, by: `${actor.kind}:${by}`, audit });
    if (result.status === 'resolved') return result.row;
    if (result.status === 'not_found') fail('not_found', `processor difference ${input.id} not found`);
    fail('invalid_state', `processor difference ${input.id} is already resolved`);
  });
}
