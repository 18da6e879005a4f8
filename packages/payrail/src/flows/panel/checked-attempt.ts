// One shape for every check of a panel user's secrets (sign-in, the second
// factor, re-authentication, enrolling or removing a second factor): count
// the attempt per address and per account first (attempts.ts), refuse it
// when either is locked, run the slow checks outside any transaction, then
// commit the outcome, its audit event and the counters in one transaction
// (store/panel/attempts.ts).
import type { AuditActor, AuditEvent } from '../../domain/audit.ts';
import { type AttemptWork, finishPanelAttempt, startPanelAttempt } from '../../store/panel/attempts.ts';
import type { PanelUserRow } from '../../store/panel-users.ts';
import { ATTEMPT_LIMITS, lockSetBy } from './attempts.ts';
import type { PanelDeps } from './deps.ts';

export type AttemptOutcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly reason: 'invalid' }
  | { readonly ok: false; readonly reason: 'locked'; readonly lockedForMs: number };

export interface Attempt<T> {
  readonly email: string;
  readonly address: string;
  /** Who is acting and on what, once the account (or its absence) is known. */
  readonly describe: (user: PanelUserRow | undefined) => { actor: AuditActor; event: AuditEvent };
  /** Slow checks outside any transaction (the password hash): why they fail, or null when they pass. */
  readonly precheck: (user: PanelUserRow | undefined) => Promise<string | null>;
  /**
   * For an enabled user whose prechecks passed: the work the final write
   * transaction does (it may still refuse a wrong or reused code), and the
   * value answered once it is done.
   */
  readonly prepare: (user: PanelUserRow, nowMs: number) => { work: AttemptWork; value: T };
}

export async function checkedAttempt<T>(deps: PanelDeps, attempt: Attempt<T>): Promise<AttemptOutcome<T>> {
  const { email, address } = attempt;
  const limits = ATTEMPT_LIMITS;
  const started = await startPanelAttempt(deps.db, { email, address, limits, nowMs: deps.clock.nowMs(), describe: attempt.describe });
  if (started.kind === 'locked') return { ok: false, reason: 'locked', lockedForMs: started.lockedForMs };

  const { user, counts } = started;
  const problem = await attempt.precheck(user);
  const nowMs = deps.clock.nowMs();
  const { actor, event } = attempt.describe(user);
  const prepared = user !== undefined && problem === null && user.disabled_at_ms === null ? attempt.prepare(user, nowMs) : null;
  const settle = prepared !== null ? { work: prepared.work } : { denied: user === undefined ? 'unknown e-mail' : (problem ?? 'user disabled') };
  const finished = await finishPanelAttempt(deps.db, { email, address, limits, actor, event, nowMs, settle });
  if (finished.ok && prepared !== null) return { ok: true, value: prepared.value };
  // This failure was counted before the check; the attempt that reached a limit set its lock.
  const lock = lockSetBy(counts, nowMs);
  return lock === null ? { ok: false, reason: 'invalid' } : { ok: false, reason: 'locked', lockedForMs: lock.lockedForMs };
}
