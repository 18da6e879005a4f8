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
// limit. An attempt counts as a failure until its secret proves right. The
// store counts and settles attempts (store/panel/attempts.ts) by these limits.
import type { AttemptLimits, CountedAttempt } from '../../store/panel/attempts.ts';

export type { CountedAttempt };

export const ADDRESS_FAILURES_MAX = 5;
export const ACCOUNT_FAILURES_MAX = 20;
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
export const LOCKOUT_MS = 30 * 60 * 1000;

export const ATTEMPT_LIMITS: AttemptLimits = {
  addressFailuresMax: ADDRESS_FAILURES_MAX,
  accountFailuresMax: ACCOUNT_FAILURES_MAX,
  windowMs: LOGIN_WINDOW_MS,
  lockoutMs: LOCKOUT_MS,
  staleRowsSweptMax: 100,
};

/** After a checked attempt failed: whether it was the one that reached a limit and set a lock still running. */
export function lockSetBy(counted: CountedAttempt, nowMs: number): { lockedForMs: number } | null {
  const locks = [
    counted.address.failures >= ADDRESS_FAILURES_MAX ? counted.address.locked_until_ms : 0,
    counted.account !== null && counted.account.failures >= ACCOUNT_FAILURES_MAX ? counted.account.locked_until_ms : 0,
  ];
  const until = Math.max(...locks);
  return until > nowMs ? { lockedForMs: until - nowMs } : null;
}
