// Counting the panel's sign-in attempts (per client address, per account
// and address, per account from unknown addresses) and settling them, as
// commands. The limits are the panel's rules
// (flows/panel/attempts.ts says why they are what they are) and arrive as
// data; the counting runs here because each count must be taken by its
// conditional upsert before the secret is checked, and the refusal it
// decides is recorded in that same transaction.
import type { AuditActor, AuditEvent } from '../../domain/audit.ts';
import { addressKey } from '../../domain/client-address.ts';
import { appendAudit } from '../audit-events.ts';
import type { Db, Tx } from '../db.ts';
import { countLoginAttempt, deleteStaleLoginFailures, type LoginAttemptCount, uncountLoginAttempt } from '../panel-login-failures.ts';
import { claimDelayedAttempt, deletePairFailures, deleteStalePairFailures, isKnownAddress, rememberAddress } from '../panel-sign-in-delays.ts';
import { getUserByEmail, type PanelUserRow } from '../panel-users.ts';
import { type AttemptWork, doAttemptWork } from './attempt-work.ts';

export type { AttemptWork };

export interface AttemptLimits {
  readonly addressFailuresMax: number;
  readonly windowMs: number;
  readonly lockoutMs: number;
  /** A delay counter (account, pair) starts again after this long without an attempt. */
  readonly quietMs: number;
  /** Delay after the `failures`-th attempt of one account from one address. */
  readonly pairDelayMsFor: (failures: number) => number;
  /** Delay after the `failures`-th attempt on one account from addresses it has not signed in from. */
  readonly accountDelayMsFor: (failures: number) => number;
  /** How long a successful sign-in makes its address known to the account. */
  readonly knownAddressMs: number;
  /** Stale counter rows swept per attempt, so the tables do not grow with every address ever seen. */
  readonly staleRowsSweptMax: number;
}

export interface CountedAttempt {
  readonly address: LoginAttemptCount;
}

/** Who acts and on what, once the account (or its absence) is known: a pure function of the flow. */
export type DescribeAttempt = (user: PanelUserRow | undefined) => { actor: AuditActor; event: AuditEvent };

type Counted = { readonly counts: CountedAttempt } | { readonly refused: { lockedForMs: number; by: 'address' | 'account' | 'pair' } };

/**
 * Counts an attempt before its secret is checked: per client address (a hard
 * lock, which only locks that address out), then its turn per account and
 * address (a progressive delay), then, from an address the account has not
 * signed in from lately, its turn per account (a progressive delay too). An
 * address the account knows is never slowed down by failures elsewhere, so
 * strangers cannot lock its owner out.
 */
async function countAttempt(tx: Tx, limits: AttemptLimits, input: { email: string; address: string; nowMs: number }): Promise<Counted> {
  const { nowMs, email } = input;
  const windowStartMinMs = nowMs - limits.windowMs;
  const quietSinceMs = nowMs - limits.quietMs;
  const addressKeyText = addressKey(input.address);
  const limit = limits.staleRowsSweptMax;
  const address = await countLoginAttempt(tx, 'address', {
    key: addressKeyText,
    nowMs,
    windowStartMinMs,
    failuresMax: limits.addressFailuresMax,
    lockedUntilMs: nowMs + limits.lockoutMs,
  });
  await deleteStaleLoginFailures(tx, 'address', { windowStartMinMs, nowMs, exceptKey: addressKeyText, limit });
  // An address the account signed in from is not locked out of it by others
  // failing from that address (or its /64): only its pair's delay applies.
  const known = await isKnownAddress(tx, email, addressKeyText, nowMs - limits.knownAddressMs);
  if (address.failures > limits.addressFailuresMax && !known) {
    return { refused: { lockedForMs: Math.max(0, address.locked_until_ms - nowMs), by: 'address' } };
  }
  const pair = await claimDelayedAttempt(tx, 'pair', { keyValues: [email, addressKeyText], nowMs, quietSinceMs, delayMsFor: limits.pairDelayMsFor });
  await deleteStalePairFailures(tx, quietSinceMs, nowMs, limit);
  if (!pair.allowed) return { refused: { lockedForMs: pair.untilMs - nowMs, by: 'pair' } };
  if (!known) {
    const account = await claimDelayedAttempt(tx, 'account', { keyValues: [email], nowMs, quietSinceMs, delayMsFor: limits.accountDelayMsFor });
    await deleteStaleLoginFailures(tx, 'account', { windowStartMinMs: quietSinceMs, nowMs, exceptKey: email, limit });
    if (!account.allowed) return { refused: { lockedForMs: account.untilMs - nowMs, by: 'account' } };
  }
  return { counts: { address } };
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
    const counted = await countAttempt(tx, limits, { email, address, nowMs });
    if ('counts' in counted) return { kind: 'counted', user, counts: counted.counts };
    const { refused } = counted;
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
      // The right secret from this address: its pair's delays end and the account knows it.
      // The account's count of strangers' failures stays: the owner's success must not reset it for them.
      const key = addressKey(address);
      await deletePairFailures(tx, email, key);
      await rememberAddress(tx, email, key, nowMs, nowMs - input.limits.knownAddressMs);
      await uncountLoginAttempt(tx, 'address', key, input.limits.addressFailuresMax);
      await appendAudit(tx, actor, event, 'success', nowMs);
      return { ok: true };
    }
    await appendAudit(tx, actor, { ...event, detail: why }, 'denied', nowMs);
    return { ok: false, why };
  });
}
