// The card transaction lifecycle as rules (docs/api-decisions.md sections 10
// and 14): which status a transaction shows, how long an authorization
// lives, when the daily batch closes, and what may still be refunded. The
// store keeps raw facts (the processor's answer, the stage, a pending
// operation); this file is the one place that turns them into the statuses
// merchants see and filter by.
import { DAY_MS } from './clock.ts';
import type { WireDialect } from './wire-dialect.ts';

/** Where an approved transaction is in its life. */
export const STAGES = ['authorized', 'captured', 'settled', 'voided', 'expired'] as const;
export type Stage = (typeof STAGES)[number];

/** What the processor answered about the transaction's own operation. */
export type AnswerStatus = 'approved' | 'pending' | 'declined' | 'failed';

/** A capture or void written before the processor is asked, awaiting its answer. */
export type PendingOperation = 'capture' | 'void';

/** The statuses of `transaction.status_details.status` and of the list's `status` filter (the `spec` dialect). */
export const TRANSACTION_STATUSES = ['approved', 'captured', 'pending', 'settled', 'voided', 'expired', 'declined', 'error'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/**
 * accept.blue's list filter statuses (its `status_details.status` enum with
 * `expired` in place of `unknown`): the `acceptblue` dialect's `status`
 * filter takes any of them. Those no Payrail transaction reaches (reserve,
 * cancelled, blocked) match nothing; originated and returned only checks
 * reach (domain/ach.ts ACH_STATUS_NAMES).
 */
export const ACCEPTBLUE_TRANSACTION_STATUSES = [
  'captured',
  'pending',
  'reserve',
  'originated',
  'returned',
  'cancelled',
  'queued',
  'declined',
  'error',
  'settled',
  'voided',
  'approved',
  'blocked',
  'expired',
] as const;
export type AcceptBlueTransactionStatus = (typeof ACCEPTBLUE_TRANSACTION_STATUSES)[number];

/** The list's `type` filter: a charge (authorization or sale), a refund, or a zero-amount card check. */
export const TRANSACTION_TYPES = ['charge', 'refund', 'verify'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

/** accept.blue's `payment_type` filter: card transactions and checks (behaviour section 17). */
export const PAYMENT_TYPES = ['credit_card', 'check'] as const;
export type PaymentType = (typeof PAYMENT_TYPES)[number];

/** An authorization not captured within this expires (docs/api-decisions.md section 10). */
export const AUTHORIZATION_LIFETIME_MS = 7 * DAY_MS;

export interface LifecycleFacts {
  readonly status: AnswerStatus;
  readonly stage: Stage | null;
  readonly op: PendingOperation | null;
}

/**
 * Where a transaction is, from its raw facts: the one classification both
 * the status a transaction shows (transactionStatusOf) and the list's status
 * filter (statesShowing, with one SQL condition per state in the store) are
 * built from, so a filter always finds what the answers show. `processing`:
 * the processor's answer (or a capture's or void's) is not in yet;
 * `verified`: an approved card check, which has no lifecycle.
 */
export const TRANSACTION_STATES = ['processing', 'declined', 'failed', 'verified', 'authorized', 'captured', 'settled', 'voided', 'expired'] as const;
export type TransactionState = (typeof TRANSACTION_STATES)[number];

export function transactionStateOf(facts: LifecycleFacts): TransactionState {
  if (facts.status === 'pending' || facts.op !== null) return 'processing';
  if (facts.status === 'declined') return 'declined';
  if (facts.status === 'failed') return 'failed';
  return facts.stage === null ? 'verified' : facts.stage;
}

/**
 * The status each state shows, by dialect. A capture or void whose answer is
 * not in yet shows `pending` (wait for a final status); a processor failure
 * shows `error`, as the list filter names it (shape B still says "failed").
 * accept.blue calls an uncaptured authorization `queued` (its integrations
 * void queued, captured and pending transactions and refund settled ones);
 * the interface spec calls it `approved`, like a card check.
 */
const STATUS_NAMES = {
  spec: {
    processing: 'pending',
    declined: 'declined',
    failed: 'error',
    verified: 'approved',
    authorized: 'approved',
    captured: 'captured',
    settled: 'settled',
    voided: 'voided',
    expired: 'expired',
  },
  acceptblue: {
    processing: 'pending',
    declined: 'declined',
    failed: 'error',
    verified: 'approved',
    authorized: 'queued',
    captured: 'captured',
    settled: 'settled',
    voided: 'voided',
    expired: 'expired',
  },
} as const satisfies { spec: Record<TransactionState, TransactionStatus>; acceptblue: Record<TransactionState, AcceptBlueTransactionStatus> };

/** The status a transaction shows in `dialect` (`status_details.status`, the panel's status column). */
export function transactionStatusOf(facts: LifecycleFacts): TransactionStatus;
export function transactionStatusOf(facts: LifecycleFacts, dialect: 'spec'): TransactionStatus;
export function transactionStatusOf(facts: LifecycleFacts, dialect: WireDialect): TransactionStatus | AcceptBlueTransactionStatus;
export function transactionStatusOf(facts: LifecycleFacts, dialect: WireDialect = 'spec'): TransactionStatus | AcceptBlueTransactionStatus {
  return STATUS_NAMES[dialect][transactionStateOf(facts)];
}

/** The states whose transactions show one of `statuses` in `dialect`: what a status filter selects (none for a status never shown). */
export function statesShowing(statuses: readonly string[], dialect: WireDialect): TransactionState[] {
  const names: Record<TransactionState, string> = STATUS_NAMES[dialect];
  return TRANSACTION_STATES.filter((state) => statuses.includes(names[state]));
}

/** What of a captured charge may still go back to the card: not what was refunded, nor what funds transfers that have not failed. */
export function refundableCents(charge: { captured_cents: number; refunded_cents: number; linked_cents: number }): number {
  return Math.max(0, charge.captured_cents - charge.refunded_cents - charge.linked_cents);
}

// Batch close time ---------------------------------------------------------

const CLOSE_TIME_PATTERN = /^([01][0-9]|2[0-3]):([0-5][0-9])$/;

/** Minutes after midnight UTC of a "HH:MM" close time, or null when `text` is not one. */
export function parseCloseTime(text: string): number | null {
  const match = CLOSE_TIME_PATTERN.exec(text);
  return match === null ? null : Number(match[1]) * 60 + Number(match[2]);
}

/** The most recent daily close time at or before `nowMs`. */
export function lastCloseAtOrBeforeMs(nowMs: number, closeMinuteOfDay: number): number {
  const todayCloseMs = Math.floor(nowMs / DAY_MS) * DAY_MS + closeMinuteOfDay * 60_000;
  return todayCloseMs <= nowMs ? todayCloseMs : todayCloseMs - DAY_MS;
}

/** The UTC date of `ms` as YYYY-MM-DD: how `settled_date` is written. */
export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
