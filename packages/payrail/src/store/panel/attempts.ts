// Counting the panel's sign-in attempts (per client address and per
// account) and settling them, as commands. The limits are the panel's rules
// (flows/panel/attempts.ts says why they are what they are) and arrive as
// data; the counting runs here because each count must be taken by its
// conditional upsert before the secret is checked, and the refusal it
// decides is recorded in that same transaction.
import type { AuditActor, AuditEvent } from '../../domain/audit.ts';
import { addressKey } from '../../domain/client-address.ts';
import { appendAudit } from '../audit-events.ts';
import type { Db, Tx } from '../db.ts';
import { countLoginAttempt, deleteLoginFailures, deleteStaleLoginFailures, type LoginAttemptCount, uncountLoginAttempt } from '../panel-login-failures.ts';
import { getUserByEmail, type PanelUserRow } from '../panel-users.ts';
import { type AttemptWork, doAttemptWork } from './attempt-work.ts';

export type { AttemptWork };

export interface AttemptLimits {
  readonly addressFailuresMax: number;
  readonly accountFailuresMax: number;
  readonly windowMs: number;
  readonly lockoutMs: number;
  /** Stale counter rows swept per attempt, so the tables do not grow with every address ever seen. */
  readonly staleRowsSweptMax: number;
}

export interface CountedAttempt {
  readonly address: LoginAttemptCount;
  /** Null when the attempt was refused on its address and not counted against the account. */
  readonly account: LoginAttemptCount | null;
}

/** Who acts and on what, once the account (or its absence) is known: a pure function of the flow. */
export type DescribeAttempt = (user: PanelUserRow | undefined) => { actor: AuditActor; event: AuditEvent };

async function countAttempt(tx: Tx, limits: AttemptLimits, input: { email: string; address: string; nowMs: number }): Promise<CountedAttempt> {
  const { nowMs } = input;
  const windowStartMinMs = nowMs - limits.windowMs;
  const lockedUntilMs = nowMs + limits.lockoutMs;
  const addressKeyText = addressKey(input.address);
  const limit = limits.staleRowsSweptMax;
  const address = await countLoginAttempt(tx, 'address', {
    key: addressKeyText,
    nowMs,
    windowStartMinMs,
    failuresMax: limits.addressFailuresMax,
    lockedUntilMs,
  });
  await deleteStaleLoginFailures(tx, 'address', { windowStartMinMs, nowMs, exceptKey: addressKeyText, limit });
  if (address.failures > limits.addressFailuresMax) return { address, account: null };
  const account = await countLoginAttempt(tx, 'account', {
    key: input.email,
    nowMs,
    windowStartMinMs,
    failuresMax: limits.accountFailuresMax,
    lockedUntilMs,
  });
  await deleteStaleLoginFailures(tx, 'account', { windowStartMinMs, nowMs, exceptKey: input.email, limit });
  return { address, account };
}

/** Why an attempt may not even be checked: its address or its account is over the limit. Null when it may. */
function refusal(counted: CountedAttempt, limits: AttemptLimits, nowMs: number): { lockedForMs: number; by: 'address' | 'account' } | null {
  if (counted.address.failures > limits.addressFailuresMax) {
    return { lockedForMs: Math.max(0, counted.address.locked_until_ms - nowMs), by: 'address' };
  }
  if (counted.account !== null && counted.account.failures > limits.accountFailuresMax) {
    return { lockedForMs: Math.max(0, counted.account.locked_until_ms - nowMs), by: 'account' };
  }
  return null;
}

export type StartedAttempt =
  | { readonly kind: 'locked'; readonly lockedForMs: number }
  | { readonly kind: 'counted'; readonly user: PanelUserRow | undefined; readonly counts: CountedAttempt };

/**
 * Reads the account and counts the attempt before any secret is checked; an
 * attempt over a limit is recorded (denied) and answered locked.
 */
export async function startPanelAttempt(
  db: Db,
  input: { email: string; address: string; limits: AttemptLimits; nowMs: number; describe: DescribeAttempt },
): Promise<StartedAttempt> {
  const { email, address, limits, nowMs } = input;
  return db.write(async (tx): Promise<StartedAttempt> => {
    const user = await getUserByEmail(tx, email);
    const counts = await countAttempt(tx, limits, { email, address, nowMs });
    const refused = refusal(counts, limits, nowMs);
    if (refused === null) return { kind: 'counted', user, counts };
    const { actor, event } = input.describe(user);
    await appendAudit(tx, actor, { ...event, detail: `refused: ${refused.by} locked` }, 'denied', nowMs);
    return { kind: 'locked', lockedForMs: refused.lockedForMs };
  });
}

/** How a checked attempt ended: its work done, or denied (and why, for the audit trail). */
export type FinishedAttempt = { readonly ok: true } | { readonly ok: false; readonly why: string };

/**
 * Settles a counted attempt in one transaction: for an attempt whose checks
 * passed, its work; when the work is done, the account's count
 * cleared and its own count on the address taken back; the audit event
 * (success or denied) either way.
 */
export async function finishPanelAttempt(
  db: Db,
  input: {
    email: string;
    address: string;
    limits: AttemptLimits;
    actor: AuditActor;
    event: AuditEvent;
    nowMs: number;
    /** The work of an attempt whose checks passed, or why it is denied before any (unknown e-mail, wrong password, disabled). */
    settle: { readonly work: AttemptWork } | { readonly denied: string };
  },
): Promise<FinishedAttempt> {
  const { email, address, actor, event, nowMs, settle } = input;
  return db.write(async (tx): Promise<FinishedAttempt> => {
    const why = 'denied' in settle ? settle.denied : await doAttemptWork(tx, settle.work, nowMs);
    if (why === null) {
      await deleteLoginFailures(tx, 'account', email);
      await uncountLoginAttempt(tx, 'address', addressKey(address), input.limits.addressFailuresMax);
      await appendAudit(tx, actor, event, 'success', nowMs);
      return { ok: true };
    }
    await appendAudit(tx, actor, { ...event, detail: why }, 'denied', nowMs);
    return { ok: false, why };
  });
}
