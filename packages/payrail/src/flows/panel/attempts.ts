// Lock-out of panel sign-in (PCI DSS 8.3.4), counted twice: per client
// address and per account (e-mail address, known or not). Sign-in, the
// second-factor step and re-authentication all count here.
//
// - An address with ADDRESS_FAILURES_MAX attempts that did not succeed
//   within LOGIN_WINDOW_MS is locked for LOCKOUT_MS, for every account: a
//   locked address cannot try any.
// - An account is locked for LOCKOUT_MS after ACCOUNT_FAILURES_MAX such
//   attempts within the window. An attempt refused because its address is
//   locked is not counted against the account, so one address can add at
//   most ADDRESS_FAILURES_MAX to an account's count per window: locking an
//   account takes failures from at least ACCOUNT_FAILURES_MAX /
//   ADDRESS_FAILURES_MAX (4) addresses. Five POSTs from one address cannot
//   lock the operator out; they lock out that address.
// - A success clears the account's count, and takes back only its own count
//   on the address (it was counted as a failure before its check): an
//   address cannot alternate sign-ins to an account of its own with guesses
//   at another to stay under the limit.
//
// Every attempt is counted BEFORE its secret is checked, by conditional
// upserts whose results alone decide whether the check may run: the slow
// password hash leaves a long gap, and concurrent attempts that each read a
// count first and recorded their failure after it would all get past the
// limit. An attempt counts as a failure until its secret proves right.
import { addressKey } from '../../domain/client-address.ts';
import type { Txn } from '../../store/db.ts';
import {
  countLoginAttempt,
  deleteLoginFailures,
  deleteStaleLoginFailures,
  type LoginAttemptCount,
  uncountLoginAttempt,
} from '../../store/panel-login-failures.ts';

export const ADDRESS_FAILURES_MAX = 5;
export const ACCOUNT_FAILURES_MAX = 20;
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
export const LOCKOUT_MS = 30 * 60 * 1000;
/** Stale counter rows swept per attempt, so the tables do not grow with every address ever seen. */
const STALE_ROWS_SWEPT_MAX = 100;

export interface CountedAttempt {
  readonly address: LoginAttemptCount;
  /** Null when the attempt was refused on its address and not counted against the account. */
  readonly account: LoginAttemptCount | null;
}

/** Counts one attempt on `email` from `address`, inside the caller's write transaction. */
export async function countAttempt(tx: Txn, input: { email: string; address: string; nowMs: number }): Promise<CountedAttempt> {
  const { nowMs } = input;
  const windowStartMinMs = nowMs - LOGIN_WINDOW_MS;
  const lockedUntilMs = nowMs + LOCKOUT_MS;
  const addressKeyText = addressKey(input.address);
  const address = await countLoginAttempt(tx, 'address', {
    key: addressKeyText,
    nowMs,
    windowStartMinMs,
    failuresMax: ADDRESS_FAILURES_MAX,
    lockedUntilMs,
  });
  await deleteStaleLoginFailures(tx, 'address', { windowStartMinMs, nowMs, exceptKey: addressKeyText, limit: STALE_ROWS_SWEPT_MAX });
  if (address.failures > ADDRESS_FAILURES_MAX) return { address, account: null };
  const account = await countLoginAttempt(tx, 'account', {
    key: input.email,
    nowMs,
    windowStartMinMs,
    failuresMax: ACCOUNT_FAILURES_MAX,
    lockedUntilMs,
  });
  await deleteStaleLoginFailures(tx, 'account', { windowStartMinMs, nowMs, exceptKey: input.email, limit: STALE_ROWS_SWEPT_MAX });
  return { address, account };
}

/** Why an attempt may not even be checked: its address or its account is over the limit. Null when it may. */
export function refusal(counted: CountedAttempt, nowMs: number): { lockedForMs: number; by: 'address' | 'account' } | null {
  if (counted.address.failures > ADDRESS_FAILURES_MAX) return { lockedForMs: Math.max(0, counted.address.locked_until_ms - nowMs), by: 'address' };
  if (counted.account !== null && counted.account.failures > ACCOUNT_FAILURES_MAX) {
    return { lockedForMs: Math.max(0, counted.account.locked_until_ms - nowMs), by: 'account' };
  }
  return null;
}

/** After a checked attempt failed: whether it was the one that reached a limit and set a lock still running. */
export function lockSetBy(counted: CountedAttempt, nowMs: number): { lockedForMs: number } | null {
  const locks = [
    counted.address.failures >= ADDRESS_FAILURES_MAX ? counted.address.locked_until_ms : 0,
    counted.account !== null && counted.account.failures >= ACCOUNT_FAILURES_MAX ? counted.account.locked_until_ms : 0,
  ];
  const until = Math.max(...locks);
  return until > nowMs ? { lockedForMs: until - nowMs } : null;
}

/** A right secret clears the account's count and takes back its own count on the address (see above for why no more). */
export async function countedRight(tx: Txn, input: { email: string; address: string }): Promise<void> {
  await deleteLoginFailures(tx, 'account', input.email);
  await uncountLoginAttempt(tx, 'address', addressKey(input.address), ADDRESS_FAILURES_MAX);
}
