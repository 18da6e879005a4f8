// Asking the ACH network to take a reserved check entry (a charge's debit, a
// refund's or credit's credit) and recording its answer: outside any
// transaction, bounded by the network's deadline (providers/ach-network.ts
// achCallTimeoutMs), then one guarded transition (store/ach/transitions.ts)
// that writes the row's status, the event, the posting and the
// Idempotency-Key's reply. A thrown or late call is an unknown outcome: the
// entry stays 'submitting' and the worker asks again with the same
// reference, which the network recognises, so the account is debited or
// credited at most once.
import type { Logger } from 'pino';
import { ACH_REFUSAL_CODES, ACH_REFUSAL_TEXTS, nextCutoffAfterMs } from '../../domain/ach.ts';
import type { Clock } from '../../domain/clock.ts';
import type { ProviderKeys } from '../../domain/provider-keys.ts';
import { achCallTimeoutMs, type AchNetwork, type AchSubmitResult } from '../../providers/ach-network.ts';
import type { Service } from '../../service.ts';
import { acceptAchEntry, type AchMove, refuseAchEntry } from '../../store/ach/transitions.ts';
import { readCheckTransaction } from '../../store/ach/check-reservation.ts';
import type { TransactionRow } from '../../store/transactions.ts';
import { errorSummary } from '../common/error-summary.ts';
import { chargeReference } from '../common/provider-references.ts';
import { EVENT_VIEWS } from '../events/emit.ts';
import type { CheckAccount } from './check-account.ts';

export interface CheckSubmitDeps {
  readonly db: Service['db'];
  readonly clock: Clock;
  readonly log: Logger;
  readonly network: AchNetwork;
  readonly providerKeys: ProviderKeys;
  /** Minutes after midnight UTC of the daily ACH cut-off: the worker first asks about an accepted entry then. */
  readonly cutoffMinuteOfDay: number;
}

/** The error code a refused check entry carries (shape B's error.code, status_details.error_code): the worker records the same. */
export const CHECK_DECLINE_CODES = ACH_REFUSAL_CODES;

/** What became of a submission: recorded (the row as it now is), or unknown (the row as reserved: pending). */
export type CheckSubmitOutcome = { readonly kind: 'recorded'; readonly row: TransactionRow } | { readonly kind: 'unknown'; readonly row: TransactionRow };

/**
 * Submits the entry of `row` (just reserved, 'submitting') and records the
 * answer. `replyJson` renders the reply the row's Idempotency-Key keeps.
 */
export async function submitCheckEntry(
  deps: CheckSubmitDeps,
  input: {
    row: TransactionRow;
    direction: 'debit' | 'credit';
    account: CheckAccount;
    refunds?: { reference: string; networkRef: string } | undefined;
    replyJson: (row: TransactionRow) => string;
  },
): Promise<CheckSubmitOutcome> {
  const { row, account } = input;
  let result: AchSubmitResult;
  try {
    result = await withDeadline(deps.network, (signal) =>
      deps.network.submit({
        reference: chargeReference(deps.providerKeys, row.pk),
        merchantId: row.merchant_id,
        direction: input.direction,
        amountCents: row.amount_cents,
        currency: row.currency,
        account: { name: account.name, routingNumber: account.routingNumber, accountNumber: account.accountNumber, accountType: account.accountType },
        secCode: account.secCode,
        refunds: input.refunds,
        signal,
      }),
    );
  } catch (error) {
    deps.log.warn(
      { check: row.pk, network: deps.network.name, err: errorSummary(error) },
      'ACH network did not answer; check entry left submitting for the worker',
    );
    return { kind: 'unknown', row };
  }
  const nowMs = deps.clock.nowMs();
  const base = { chargePk: row.pk, merchantId: row.merchant_id, nowMs, views: EVENT_VIEWS, replyJson: input.replyJson };
  let moved: AchMove;
  if (result.outcome === 'accepted') {
    if (result.networkRef === '') throw new Error(`ACH network ${deps.network.name} accepted check ${row.pk} without a reference`);
    moved = await acceptAchEntry(deps.db, { ...base, networkRef: result.networkRef, nextCheckAtMs: nextCutoffAfterMs(nowMs, deps.cutoffMinuteOfDay) });
  } else {
    const message = result.declineMessage ?? ACH_REFUSAL_TEXTS[result.outcome];
    moved = await refuseAchEntry(deps.db, { ...base, outcome: result.outcome, errorCode: CHECK_DECLINE_CODES[result.outcome], message, nextCheckAtMs: null });
  }
  if (moved.kind === 'moved') return { kind: 'recorded', row: moved.row };
  // The worker recorded the answer first: the row as it recorded it.
  const current = await readCheckTransaction(deps.db, row.pk, row.merchant_id);
  if (current === undefined) throw new Error(`check ${row.pk} vanished`);
  return { kind: 'recorded', row: current };
}

/**
 * Runs a network call with the network's deadline: the signal fires then,
 * and the call counts as unanswered even if the connector ignores it.
 */
export async function withDeadline<T>(network: AchNetwork, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const timeoutMs = achCallTimeoutMs(network);
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`ACH network ${network.name} did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([call(controller.signal), late]);
  } finally {
    clearTimeout(timer);
  }
}
