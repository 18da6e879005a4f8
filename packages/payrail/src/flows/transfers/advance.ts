// The worker's state machine for transfers. One call takes a bounded batch
// of due transfers, asks the payout network about each one OUTSIDE any
// transaction, then records every answer of the batch in one write (one
// transaction), each row's step still guarded by the row's version. A crash
// between the network calls and the write leaves the rows as they were:
// they are due again and are submitted again under the same idempotency
// key, so nothing is paid twice and nothing is half-recorded.
//
// A submission the network accepts with its first poll due at once is
// polled in the same step, and both changes are recorded together (history
// rows and events exactly as two steps would write them): a payout the
// network settles at once then costs one claim and one write, not two.
//
// A submission that gets no answer (timeout, lost connection) may have been
// paid, so it never leads to a refund: the transfer waits in 40/3 and is
// resubmitted under the same key, with backoff, until the network answers
// for that key. Only definitive "nothing was paid" answers count toward
// giving up (80/8, money back), and only while no attempt's outcome is unknown.
import { formatMinor } from '../../domain/money.ts';
import { FAILURE, INVITATION_LIFETIME_MS, STATE, SUBSTATE } from '../../domain/transfer-states.ts';
import { SharedDeadline, untilAborted } from '../../providers/deadline.ts';
import type { Corridor } from '../../domain/corridors.ts';
import { PAYOUT_CALL_TIMEOUT_MS, type PayoutNetwork, type PollOutcome, type SubmitOutcome } from '../../providers/payout-network.ts';
import type { Service } from '../../service.ts';
import { changeFrom, claimDueTransfers, type TransferChange, type TransferRow } from '../../store/transfers.ts';
import { readTransferByPk } from '../../store/transfers/by-reference.ts';
import { reversalOf } from '../../store/transfers/reversals.ts';
import { type Reschedule, recordTransferSteps } from '../../store/transfers/steps.ts';
import { errorSummary } from '../common/error-summary.ts';
import { transferReference, transferUuid } from '../common/provider-references.ts';
import { minorUnitsOf } from './corridors.ts';
import { payoutNetworkOfTransfer } from './networks.ts';
import { type NetworkReport, reportNetworkReversal } from './reversals.ts';
import { prepareTransitions, type TransitionOf } from './transitions.ts';

/** Transfers taken per batch. */
export const ADVANCE_BATCH_MAX = 200;
/** Payout network calls in flight at once. */
const NETWORK_CALLS_MAX = 32;
/** How long a PostgreSQL claim keeps other workers off a row; a crashed worker's rows come back after it. */
export const CLAIM_LEASE_MS = 60_000;
/**
 * Submissions answered "unavailable" before the transfer fails and its money
 * goes back. Unknown outcomes never count: they are retried without end.
 */
export const SUBMIT_ATTEMPTS_MAX = 10;
export const RETRY_BACKOFF_MS_BASE = 1_000;
export const RETRY_BACKOFF_MS_MAX = 60_000;
/** Longest wait between two polls of a payout the network still processes. */
export const POLL_INTERVAL_MS_MAX = 10_000;

/** Exponential backoff: 1 s, 2 s, 4 s, ... up to a minute. */
export function retryBackoffMs(attempt: number): number {
  return Math.min(RETRY_BACKOFF_MS_MAX, RETRY_BACKOFF_MS_BASE * 2 ** Math.min(attempt - 1, 16));
}

/** What one step decided: a state change with its event note, or only a new time to look again. */
type Step = ChangeStep | RescheduleStep;
type RescheduleStep = { readonly kind: 'reschedule'; readonly nextRunAtMs: number | null; readonly attempts: number };
/** `pollAtOnce`: the network accepted a submission and said its first poll may tell more already. */
type ChangeStep = { readonly kind: 'change'; readonly change: TransferChange; readonly note: string; readonly pollAtOnce?: boolean };

/** What the worker records for one row: a reschedule, or one or more changes (a submission and its first poll). */
type Plan =
  | { readonly kind: 'reschedule'; readonly nextRunAtMs: number | null; readonly attempts: number }
  | { readonly kind: 'changes'; readonly changes: readonly ChangeStep[] };

/** The network calls of one batch: they share deadline signals instead of making a timer each. */
interface CallContext {
  readonly deadline: SharedDeadline;
}

export interface AdvanceReport {
  /** Rows taken from the store. */
  readonly claimed: number;
  /** Of those, rows another writer changed first; their step was dropped. */
  readonly stale: number;
}

export async function advanceDueTransfers(service: Service, limit = ADVANCE_BATCH_MAX): Promise<AdvanceReport> {
  const nowMs = service.clock.nowMs();
  const rows = await claimDueTransfers(service.db, nowMs, nowMs + CLAIM_LEASE_MS, limit);
  if (rows.length === 0) return { claimed: 0, stale: 0 };
  // Rows read here may have been committed a moment ago; submit nothing for a
  // commit that a crash could still take back.
  await service.db.synced();
  const calls: CallContext = { deadline: new SharedDeadline(PAYOUT_CALL_TIMEOUT_MS, NETWORK_CALLS_MAX) };
  // A row the worker cannot advance has no plan (null); the rest of the batch is still recorded.
  const plans: Array<Plan | null> = new Array(rows.length).fill(null);
  const errors: unknown[] = [];
  await forEachBounded(rows.length, NETWORK_CALLS_MAX, async (i) => {
    try {
      plans[i] = await plan(service, rows[i]!, calls);
    } catch (error) {
      errors.push(error);
    }
  });
  const stepNowMs = service.clock.nowMs();
  const applied = await record(service, rows, plans, stepNowMs);
  let stale = 0;
  applied.forEach((ok, i) => {
    if (ok || plans[i] === null) return;
    stale += 1;
    service.log.warn({ transfer_pk: rows[i]!.pk, version: rows[i]!.version }, 'transfer changed meanwhile; its step was dropped');
  });
  service.log.debug({ claimed: rows.length, stale }, 'transfers advanced');
  // The worker loop logs it and backs off, as for any failed batch.
  if (errors.length > 0) throw errors[0];
  return { claimed: rows.length, stale };
}

/**
 * Records the plans of a batch: everything is decided and rendered first,
 * then one transaction runs the statements (it holds the store's write lock
 * no longer than they take). Per row, whether its step was applied.
 */
async function record(service: Service, rows: readonly TransferRow[], plans: ReadonlyArray<Plan | null>, nowMs: number): Promise<boolean[]> {
  const transitions: TransitionOf[] = [];
  const transitionIndex: number[] = [];
  const reschedules: Reschedule[] = [];
  const rescheduleIndex: number[] = [];
  plans.forEach((p, i) => {
    if (p === null) return;
    if (p.kind === 'reschedule') {
      reschedules.push({ pk: rows[i]!.pk, version: rows[i]!.version, nextRunAtMs: p.nextRunAtMs, attempts: p.attempts });
      rescheduleIndex.push(i);
    } else {
      transitions.push({ row: rows[i]!, changes: p.changes });
      transitionIndex.push(i);
    }
  });
  const prepared = transitions.length > 0 ? prepareTransitions(service, transitions, nowMs) : null;
  const { rescheduled, transitioned } = await recordTransferSteps(service.db, { reschedules, transitions: prepared, nowMs });
  const applied: boolean[] = new Array(rows.length).fill(false);
  rescheduled.forEach((ok, k) => {
    applied[rescheduleIndex[k]!] = ok;
  });
  transitioned.forEach((ok, k) => {
    applied[transitionIndex[k]!] = ok;
  });
  return applied;
}

/** The step of a row, and when a submission is accepted with its first poll due at once, that poll's step too. */
async function plan(service: Service, row: TransferRow, calls: CallContext): Promise<Plan> {
  const first = await decide(service, row, calls);
  if (first.kind === 'reschedule') return first;
  if (first.pollAtOnce !== true) return { kind: 'changes', changes: [first] };
  const { change } = first;
  // The row as the first step leaves it (its version is still the one read: both steps are one guarded write).
  const then = await poll(service, { ...row, ...change }, service.clock.nowMs(), calls);
  if (then.kind === 'change') return { kind: 'changes', changes: [first, then] };
  // Only the schedule moves: the first step's change, with the poll's time to look again.
  return { kind: 'changes', changes: [{ ...first, change: { ...change, next_run_at_ms: then.nextRunAtMs, attempts: then.attempts } }] };
}

async function decide(service: Service, row: TransferRow, calls: CallContext): Promise<Step> {
  const nowMs = service.clock.nowMs();
  if (row.state === STATE.new && row.substate === SUBSTATE.waiting) {
    if (row.waiting_for === 'invitation' && row.invitation_expires_at_ms !== null && row.invitation_expires_at_ms <= nowMs) {
      return failureStep(row, SUBSTATE.invitationExpired, FAILURE.invitationExpired.text, FAILURE.invitationExpired.code, 'invitation expired');
    }
    // Not due after all: look again when the invitation expires (a reconciliation wait is found by its own job).
    return { kind: 'reschedule', nextRunAtMs: row.waiting_for === 'invitation' ? row.invitation_expires_at_ms : null, attempts: row.attempts };
  }
  if (row.state === STATE.new || (row.state === STATE.processing && (row.substate === SUBSTATE.networkRetry || row.substate === SUBSTATE.outcomeUnknown))) {
    return submit(service, row, nowMs, calls);
  }
  if (row.state === STATE.processing && row.provider_ref !== null) {
    return poll(service, row, nowMs, calls);
  }
  throw new Error(`transfer ${row.pk} is due in a state the worker cannot advance: ${row.state}/${row.substate}`);
}

/** How long a transfer whose corridor or network is no longer configured waits before it is looked at again. */
const UNROUTABLE_RETRY_MS = 60_000;

/** The corridor and network of a stored transfer, or a reschedule saying (in the log) why there is none. */
function routeOf(service: Service, row: TransferRow, nowMs: number): { corridor: Corridor; network: PayoutNetwork; name: string } | RescheduleStep {
  const corridor = service.corridors.byService(row.service);
  const found = payoutNetworkOfTransfer(service.providers, row, corridor);
  if (corridor === undefined || found === null) {
    // Its money is held (and may be at a network): wait for the operator to restore the configuration, never guess.
    service.log.error(
      { transfer_pk: row.pk, service: row.service, payout_connector: row.payout_connector },
      'transfer has no configured corridor or payout network; restore it in the corridors file',
    );
    return { kind: 'reschedule', nextRunAtMs: nowMs + UNROUTABLE_RETRY_MS, attempts: row.attempts };
  }
  return { corridor, ...found };
}

async function submit(service: Service, row: TransferRow, nowMs: number, calls: CallContext): Promise<Step> {
  const attempt = row.attempts + 1;
  const route = routeOf(service, row, nowMs);
  if ('kind' in route) return route;
  const attributes = JSON.parse(row.attributes_json) as Array<{ name: string; value: string }>;
  let outcome: SubmitOutcome;
  try {
    const signal = calls.deadline.signal();
    const call = route.network.submit({
      idempotencyKey: transferReference(service.providerKeys, row.pk),
      idempotencyUuid: transferUuid(service.providerKeys, row.pk),
      transferId: row.id,
      corridor: route.corridor,
      attempt,
      receiverPhone: row.receiver_phone,
      senderPhone: row.sender_phone,
      amountCents: Number(row.amount_cents),
      currency: row.receiver_currency,
      receivedMinor: Number(row.received_minor),
      attributes,
      signal,
    });
    outcome = await untilAborted(call, signal);
  } catch (error) {
    // The submission may or may not have reached the network and been paid.
    // Only the error's name and message are logged (a connector's error may
    // carry the request), and only its name goes into the transfer's history.
    const summary = errorSummary(error);
    service.log.warn({ err: summary, transfer_pk: row.pk, attempt }, 'payout network submit did not answer; outcome unknown, will resubmit');
    return pinned(outcomeUnknown(row, attempt, nowMs, `attempt ${attempt}: no answer from the payout network (${summary.name})`), route.name);
  }
  if (row.substate === SUBSTATE.outcomeUnknown && (outcome.kind === 'rejected' || outcome.kind === 'receiver_unregistered')) {
    // A refusal of this attempt says nothing of an earlier one the network
    // may have taken: the money stays out until the network reports the
    // payout or an operator decides (runbook: check the payout at the network).
    service.log.error(
      { transfer_pk: row.pk, attempt, answer: outcome.kind, ...(outcome.kind === 'rejected' ? { code: outcome.errorCode } : {}) },
      'payout network refused a resubmission of a payout whose earlier submission may have been taken; kept in processing',
    );
  }
  return pinned(submitted(row, outcome, attempt, nowMs), route.name);
}

/** A submission's change records the network it went to (transfers.payout_connector; networks.ts says why). */
function pinned(step: Step, connector: string): Step {
  return step.kind === 'change' ? { ...step, change: { ...step.change, payout_connector: connector } } : step;
}

function submitted(row: TransferRow, outcome: SubmitOutcome, attempt: number, nowMs: number): Step {
  const base = changeFrom(row);
  // Only "accepted" ends an unknown outcome: any other answer covers this attempt only.
  if (row.substate === SUBSTATE.outcomeUnknown && outcome.kind !== 'accepted') {
    const what =
      outcome.kind === 'rejected' ? `refused (${outcome.errorCode})` : outcome.kind === 'unavailable' ? outcome.reason : 'receiver not on the network';
    return outcomeUnknown(row, attempt, nowMs, `attempt ${attempt}: ${what}`);
  }
  switch (outcome.kind) {
    case 'accepted':
      return {
        kind: 'change',
        change: {
          ...base,
          state: STATE.processing,
          substate: SUBSTATE.atNetwork,
          attempts: 0,
          provider_ref: outcome.providerRef,
          payment_id: outcome.providerRef,
          submitted_at_ms: nowMs,
          next_run_at_ms: nowMs + Math.min(POLL_INTERVAL_MS_MAX, Math.max(0, outcome.pollAfterMs)),
        },
        note: 'accepted by the payout network',
        pollAtOnce: outcome.pollAfterMs <= 0,
      };
    case 'receiver_unregistered':
      return {
        kind: 'change',
        change: {
          ...base,
          state: STATE.new,
          substate: SUBSTATE.waiting,
          waiting_for: 'invitation',
          attempts: 0,
          invitation_expires_at_ms: nowMs + INVITATION_LIFETIME_MS,
          next_run_at_ms: nowMs + INVITATION_LIFETIME_MS,
        },
        note: 'receiver not on the network; payment invitation sent',
      };
    case 'rejected':
      return failureStep(row, SUBSTATE.networkError, outcome.errorText, outcome.errorCode, 'rejected by the payout network');
    case 'unavailable':
      if (attempt >= SUBMIT_ATTEMPTS_MAX) {
        return failureStep(
          row,
          SUBSTATE.networkGaveUp,
          FAILURE.networkGaveUp.text,
          FAILURE.networkGaveUp.code,
          `gave up after ${attempt} attempts: ${outcome.reason}`,
        );
      }
      return {
        kind: 'change',
        change: { ...base, state: STATE.processing, substate: SUBSTATE.networkRetry, attempts: attempt, next_run_at_ms: nowMs + retryBackoffMs(attempt) },
        note: `attempt ${attempt}: ${outcome.reason}`,
      };
  }
}

/**
 * The transfer's submission may have been paid: it moves to (or stays in)
 * 40/3 and is resubmitted under the same key after a backoff, without end.
 * Only the move into 40/3 is an event; later retries move the schedule only,
 * so a long outage does not grow the history.
 */
function outcomeUnknown(row: TransferRow, attempt: number, nowMs: number, note: string): Step {
  const nextRunAtMs = nowMs + retryBackoffMs(attempt);
  if (row.state === STATE.processing && row.substate === SUBSTATE.outcomeUnknown) {
    return { kind: 'reschedule', nextRunAtMs, attempts: attempt };
  }
  return {
    kind: 'change',
    change: { ...changeFrom(row), state: STATE.processing, substate: SUBSTATE.outcomeUnknown, attempts: attempt, next_run_at_ms: nextRunAtMs },
    note,
  };
}

/** What the network says of a submitted payout, with the network asked; a reschedule when it cannot be asked or did not answer. */
async function askNetwork(
  service: Service,
  row: TransferRow,
  nowMs: number,
  calls: CallContext,
): Promise<{ readonly outcome: PollOutcome; readonly connector: string } | RescheduleStep> {
  const route = routeOf(service, row, nowMs);
  if ('kind' in route) return route;
  try {
    const signal = calls.deadline.signal();
    const request = {
      providerRef: row.provider_ref!,
      idempotencyKey: transferReference(service.providerKeys, row.pk),
      idempotencyUuid: transferUuid(service.providerKeys, row.pk),
      corridor: route.corridor,
      signal,
    };
    return { outcome: await untilAborted(route.network.poll(request), signal), connector: route.name };
  } catch (error) {
    // The money is at the network: never give up on it, only slow down.
    const attempts = row.attempts + 1;
    service.log.warn({ err: errorSummary(error), transfer_pk: row.pk }, 'payout network poll failed; will retry');
    return { kind: 'reschedule', nextRunAtMs: nowMs + retryBackoffMs(attempts), attempts };
  }
}

async function poll(service: Service, row: TransferRow, nowMs: number, calls: CallContext): Promise<Step> {
  const asked = await askNetwork(service, row, nowMs, calls);
  if ('kind' in asked) return asked;
  const { outcome } = asked;
  switch (outcome.kind) {
    case 'pending':
      return { kind: 'reschedule', nextRunAtMs: nowMs + Math.min(POLL_INTERVAL_MS_MAX, Math.max(0, outcome.retryAfterMs)), attempts: 0 };
    case 'succeeded':
      return {
        kind: 'change',
        change: {
          ...changeFrom(row),
          state: STATE.succeeded,
          substate: SUBSTATE.done,
          final: 1,
          next_run_at_ms: null,
          attempts: 0,
          trans: outcome.transactionRef,
          sum_prov: formatMinor(Number(row.received_minor), minorUnitsOf(service, row.service, row.receiver_currency)),
        },
        note: 'paid out',
      };
    case 'failed':
    // A payout taken back before Payrail saw it complete never reached the receiver: a failure like any other.
    case 'reversed':
      return failureStep(row, SUBSTATE.networkError, outcome.errorText, outcome.errorCode, 'failed at the payout network');
  }
}

/**
 * What one transfer's single step did (a provider callback's, below):
 * `applied` a state change was recorded; `raced` another writer (the
 * worker, another callback) changed the row first and this step was
 * dropped; `unchanged` the network had nothing new, or did not answer (the
 * worker polls again); `not-at-network` nothing of it is at the network to
 * ask about (not submitted yet, or resubmitting: only the worker submits);
 * `final` it had ended and the network says nothing more of it; or what
 * became of a reversal reported for a completed payout.
 */
export type OneTransferOutcome = 'applied' | 'raced' | 'unchanged' | 'not-at-network' | 'final' | 'no-such-transfer' | NetworkReport;

/**
 * How long a single step waits for the network's answer. A network waits
 * only seconds for the answer to its callback (and sends it again when it
 * gets none); a slower poll is left to the worker, which asks again anyway.
 */
export const SINGLE_POLL_TIMEOUT_MS = 10_000;

/**
 * Re-reads one transfer's payout from its network and records the answer
 * through the worker's own guarded step: the row's version guards the write,
 * so a callback and the worker (or two callbacks) that learn one outcome
 * record it once, and a replayed or late callback finds the row changed or
 * final and changes nothing. It polls only: a callback never submits.
 *
 * A payout Payrail recorded as completed (60) whose network now answers
 * `reversed` (or `failed`) is reported as a reversal for the operator
 * (flows/transfers/reversals.ts); the transfer itself stays final.
 */
export async function advanceOneTransfer(service: Service, pk: number): Promise<OneTransferOutcome> {
  const row = await readTransferByPk(service.db, pk);
  if (row === undefined) return 'no-such-transfer';
  if (row.provider_ref === null) return row.final === 1 ? 'final' : 'not-at-network';
  const isPaidOut = row.final === 1 && row.state === STATE.succeeded;
  if (row.final === 1 && !isPaidOut) return 'final';
  if (!isPaidOut && !(row.state === STATE.processing && row.substate === SUBSTATE.atNetwork)) return 'not-at-network';
  const calls: CallContext = { deadline: new SharedDeadline(SINGLE_POLL_TIMEOUT_MS, 1) };
  const nowMs = service.clock.nowMs();
  if (isPaidOut) {
    // A reversal recorded already (a replayed callback): the network is not asked again.
    if ((await reversalOf(service.db, row.pk)) !== undefined) return 'reversal-known';
    const asked = await askNetwork(service, row, nowMs, calls);
    if ('kind' in asked) return 'unchanged';
    const { outcome } = asked;
    if (outcome.kind !== 'reversed' && outcome.kind !== 'failed') return 'final';
    service.log.warn({ transfer_pk: row.pk, connector: asked.connector, code: outcome.errorCode }, 'payout network reports a completed payout taken back');
    return reportNetworkReversal(service, { transferPk: row.pk, connector: asked.connector, errorCode: outcome.errorCode, errorText: outcome.errorText });
  }
  const step = await poll(service, row, nowMs, calls);
  // Pending, or no answer: the worker's schedule stands (moving it would only race the worker's claim).
  if (step.kind === 'reschedule') return 'unchanged';
  const [applied] = await record(service, [row], [{ kind: 'changes', changes: [step] }], service.clock.nowMs());
  return applied === true ? 'applied' : 'raced';
}

function failureStep(row: TransferRow, substate: number, errorText: string, errorCode: string, note: string): Step {
  return {
    kind: 'change',
    change: {
      ...changeFrom(row),
      state: STATE.failed,
      substate,
      final: 1,
      waiting_for: null,
      next_run_at_ms: null,
      provider_error_text: errorText,
      provider_error_code: errorCode,
    },
    note,
  };
}

/** Runs `work` for the indexes 0 .. count-1 with at most `limit` running at once. */
async function forEachBounded(count: number, limit: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, count) }, async () => {
    while (next < count) await work(next++);
  });
  await Promise.all(lanes);
}
