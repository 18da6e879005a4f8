// Keeping a session provider's decisions (behaviour.md section 18). The
// decision webhook is a hint: Payrail asks the provider for the session's
// decision and keeps the answer through one guarded store command
// (applySessionDecision), so a forged or replayed webhook cannot invent or
// repeat a decision and an older one never replaces a newer. The worker's
// backstop (worker/kyc-jobs.ts) asks the same question for sessions still
// open a few minutes after they started, for webhooks that never came.
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock.ts';
import type { KycConnector, KycSessionDecision, SessionKycProvider } from '../../providers/kyc.ts';
import type { Db } from '../../store/db.ts';
import { applySessionDecision, markChecked, openSessionsToCheck, readVerificationBySession } from '../../store/receivers/verifications.ts';
import { errorSummary } from '../common/error-summary.ts';
import { kycSessionDecision } from './lookups.ts';

export interface KycDecisionDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly log: Logger;
  readonly kyc: KycConnector;
}

export type KycHintResult = 'kyc-applied' | 'kyc-unchanged' | 'no-such-session' | 'provider-unreachable' | 'not-applied';

/** Longest session id looked up (Veriff's are UUIDs). */
const SESSION_ID_CHARS_MAX = 64;

/** Asks the provider about a session a webhook named and keeps its decision. A session Payrail never started is left alone. */
export async function refreshSessionDecision(deps: KycDecisionDeps, sessionId: string): Promise<KycHintResult> {
  const kyc = deps.kyc;
  if (kyc.kind !== 'sessions') return 'not-applied';
  if (sessionId === '' || sessionId.length > SESSION_ID_CHARS_MAX) return 'no-such-session';
  if ((await readVerificationBySession(deps.db, sessionId)) === null) return 'no-such-session';
  return askAndApply(deps, kyc, sessionId);
}

async function askAndApply(deps: KycDecisionDeps, kyc: SessionKycProvider, sessionId: string): Promise<KycHintResult> {
  let decision: KycSessionDecision;
  try {
    decision = await kycSessionDecision(kyc, sessionId);
  } catch (error) {
    // The backstop asks again later.
    deps.log.warn({ connector: kyc.name, err: errorSummary(error) }, 'KYC decision read failed; the worker asks again later');
    return 'provider-unreachable';
  }
  const applied = await applySessionDecision(deps.db, { sessionId, decision, nowMs: deps.clock.nowMs() });
  return applied === 'applied' ? 'kyc-applied' : 'kyc-unchanged';
}

/** Sessions asked about per batch, and the batches' pace: at most KYC_BACKSTOP_BATCH_MAX decision reads per KYC_BACKSTOP_INTERVAL_MS. */
export const KYC_BACKSTOP_BATCH_MAX = 20;
export const KYC_BACKSTOP_INTERVAL_MS = 10_000;
/** A session is asked about once it has been open this long (a webhook normally arrives within seconds of the decision). */
export const KYC_BACKSTOP_AFTER_MS = 5 * 60_000;
/** And again at most this often while it stays open (a person may be reviewing it). */
export const KYC_BACKSTOP_RECHECK_MS = 15 * 60_000;
/** Sessions expired longer than this ago are no longer asked about: the receiver is handed a new one anyway. */
export const KYC_BACKSTOP_EXPIRED_GRACE_MS = 24 * 3_600_000;

/** One backstop batch: asks about open sessions whose decision never came, one at a time; returns how many were asked. */
export async function checkOpenSessions(deps: KycDecisionDeps): Promise<number> {
  const kyc = deps.kyc;
  if (kyc.kind !== 'sessions') return 0;
  const nowMs = deps.clock.nowMs();
  const due = await openSessionsToCheck(deps.db, {
    startedBeforeMs: nowMs - KYC_BACKSTOP_AFTER_MS,
    checkedBeforeMs: nowMs - KYC_BACKSTOP_RECHECK_MS,
    expiresAfterMs: nowMs - KYC_BACKSTOP_EXPIRED_GRACE_MS,
    limit: KYC_BACKSTOP_BATCH_MAX,
  });
  // Marked first: a session whose read fails is not asked again before its recheck time.
  await markChecked(
    deps.db,
    due.map((row) => row.pk),
    nowMs,
  );
  for (const row of due) await askAndApply(deps, kyc, row.sessionId);
  return due.length;
}
