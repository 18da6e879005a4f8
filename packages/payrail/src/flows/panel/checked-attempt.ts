// One shape for every check of a panel user's secrets (sign-in, the second
// factor, re-authentication, enrolling or removing a second factor): count
// the attempt per address and per account first (attempts.ts), refuse it
// when either is locked, run the slow checks outside any transaction, then
// commit the outcome, its audit event and the counters in one transaction.
import type { AuditActor, AuditEvent } from '../../domain/audit.ts';
import type { Txn } from '../../store/db.ts';
import { getUserByEmail, type PanelUserRow } from '../../store/panel-users.ts';
import { auditInTx } from '../operations/audit.ts';
import { countAttempt, countedRight, lockSetBy, refusal } from './attempts.ts';
import type { PanelDeps } from './deps.ts';

export type AttemptOutcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly reason: 'invalid' }
  | { readonly ok: false; readonly reason: 'locked'; readonly lockedForMs: number };

/** What an attempt's commit step decided: its value, or why it was refused (for the audit trail). */
export type CommitResult<T> = { readonly value: T } | { readonly refused: string };

export interface Attempt<T> {
  readonly email: string;
  readonly address: string;
  /** Who is acting and on what, once the account (or its absence) is known. */
  readonly describe: (user: PanelUserRow | undefined) => { actor: AuditActor; event: AuditEvent };
  /** Slow checks outside any transaction (the password hash): why they fail, or null when they pass. */
  readonly precheck: (user: PanelUserRow | undefined) => Promise<string | null>;
  /**
   * Inside the final write transaction, for an enabled user whose prechecks
   * passed: does the work and returns its value, or refuses (a wrong or
   * reused code) before writing anything.
   */
  readonly commit: (tx: Txn, user: PanelUserRow, nowMs: number) => Promise<CommitResult<T>>;
}

export async function checkedAttempt<T>(deps: PanelDeps, attempt: Attempt<T>): Promise<AttemptOutcome<T>> {
  const { email, address } = attempt;
  const counted = await deps.db.write(async (tx) => {
    const nowMs = deps.clock.nowMs();
    const user = await getUserByEmail(tx, email);
    const counts = await countAttempt(tx, { email, address, nowMs });
    const refused = refusal(counts, nowMs);
    if (refused !== null) {
      const { actor, event } = attempt.describe(user);
      await auditInTx(tx, actor, { ...event, detail: `refused: ${refused.by} locked` }, 'denied', nowMs);
    }
    return { user, counts, refused };
  });
  if (counted.refused !== null) return { ok: false, reason: 'locked', lockedForMs: counted.refused.lockedForMs };

  const { user, counts } = counted;
  const problem = await attempt.precheck(user);
  return deps.db.write(async (tx): Promise<AttemptOutcome<T>> => {
    const nowMs = deps.clock.nowMs();
    const { actor, event } = attempt.describe(user);
    let why = user === undefined ? 'unknown e-mail' : (problem ?? (user.disabled_at_ms !== null ? 'user disabled' : null));
    if (why === null && user !== undefined) {
      const result = await attempt.commit(tx, user, nowMs);
      if ('value' in result) {
        await countedRight(tx, { email, address });
        await auditInTx(tx, actor, event, 'success', nowMs);
        return { ok: true, value: result.value };
      }
      why = result.refused;
    }
    await auditInTx(tx, actor, { ...event, detail: why }, 'denied', nowMs);
    // This failure was counted before the check; the attempt that reached a limit set its lock.
    const lock = lockSetBy(counts, nowMs);
    return lock === null ? { ok: false, reason: 'invalid' } : { ok: false, reason: 'locked', lockedForMs: lock.lockedForMs };
  });
}
