// Calls to an ACH network, each bounded by its deadline (achCallTimeoutMs):
// a connector that ignores its signal still cannot hold up the worker's
// batch. A call that times out or throws has an unknown outcome; the caller
// asks again later with the same reference (providers/ach-network.ts).
import {
  ACH_NETWORK_TIMEOUT_MS,
  type AchEntryQuery,
  type AchEntryReport,
  type AchNetwork,
  type AchSubmission,
  type AchSubmitResult,
  type AchVoidResult,
  achCallTimeoutMs,
} from '../../providers/ach-network.ts';
import { withDeadline } from '../../providers/deadline.ts';

export function submitWithDeadline(network: AchNetwork, submission: Omit<AchSubmission, 'signal'>): Promise<AchSubmitResult> {
  return withDeadline(achCallTimeoutMs(network), (signal) => network.submit({ ...submission, signal }));
}

export function voidWithDeadline(network: AchNetwork, query: Omit<AchEntryQuery, 'signal'>): Promise<AchVoidResult> {
  return withDeadline(achCallTimeoutMs(network), (signal) => network.voidEntry({ ...query, signal }));
}

export function statusWithDeadline(network: AchNetwork, query: Omit<AchEntryQuery, 'signal'>): Promise<AchEntryReport> {
  return withDeadline(achCallTimeoutMs(network), (signal) => network.status({ ...query, signal }));
}

/**
 * Whether an entry first sent at `firstSentAtMs` may be sent again now: the
 * network recognises a re-sent reference only within its resend window, so
 * a re-send must reach it (two deadlines of margin) before the window ends,
 * or it could be taken as a new entry and debit the account twice. The same
 * rule as the card processor's (providers/card-processor.ts mayResend).
 */
export function mayResendAch(network: Pick<AchNetwork, 'resendWindowMs'>, firstSentAtMs: number, nowMs: number): boolean {
  const windowMs = network.resendWindowMs;
  if (windowMs === undefined) return true;
  return nowMs + 2 * ACH_NETWORK_TIMEOUT_MS < firstSentAtMs + windowMs;
}
