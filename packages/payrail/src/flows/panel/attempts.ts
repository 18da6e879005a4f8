// Limits of panel sign-in (PCI DSS 8.3.4). Sign-in, the second-factor step
// and re-authentication all count here. No failure of others can lock an
// account's owner out; guessing is slowed down instead:
//
// - Per client address (an IPv6 /64 counts as one): ADDRESS_FAILURES_MAX
//   attempts that did not succeed within LOGIN_WINDOW_MS lock that address
//   for LOCKOUT_MS, for every account it has not signed in to lately. This
//   only locks out the address that failed, and not even for the accounts
//   that know it (an attacker sharing the owner's /64 cannot lock the owner
//   out; the pair's delay below still slows both).
// - Per account and address: after PAIR_FREE_FAILURES failures each further
//   attempt waits a delay that doubles (1 s, 2 s, 4 s, ...) up to
//   DELAY_MAX_MS. Guessing from one place is slow; nobody else waits.
// - Per account, from addresses it has not signed in from within
//   KNOWN_ADDRESS_MS: after ACCOUNT_FREE_FAILURES such failures, each further
//   attempt from an unknown address waits a doubling delay up to
//   DELAY_MAX_MS. Guessing from many addresses is slow too, while the owner
//   signing in from an address it used before (the /64 is one signal, its
//   pair counter another) is not slowed down by strangers at all, and from a
//   new address waits at most DELAY_MAX_MS.
// - A success forgets its pair's failures and makes its address known to
//   the account; it takes back only its own count on the address. The
//   account's count of failures from unknown addresses is not reset by the
//   owner's success, so an attacker cannot wait for one to guess afresh.
// - Counts start again after QUIET_MS without an attempt.
//
// Every attempt is counted BEFORE its secret is checked, by conditional
// statements whose results alone decide whether the check may run: the slow
// password hash leaves a long gap, and concurrent attempts that each read a
// count first and recorded their failure after it would all get past the
// limit. An attempt counts as a failure until its secret proves right. The
// store counts and settles attempts (store/panel/attempts.ts) by these limits.
import type { AttemptLimits, CountedAttempt } from '../../store/panel/attempts.ts';

export type { CountedAttempt };

export const ADDRESS_FAILURES_MAX = 5;
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
export const LOCKOUT_MS = 30 * 60 * 1000;
export const PAIR_FREE_FAILURES = 3;
export const ACCOUNT_FREE_FAILURES = 10;
export const DELAY_MAX_MS = 15 * 60 * 1000;
export const QUIET_MS = 6 * 60 * 60 * 1000;
export const KNOWN_ADDRESS_MS = 90 * 24 * 60 * 60 * 1000;
const DELAY_FIRST_MS = 1000;

/** The delay after the `failures`-th counted attempt when the first `free` cost nothing: 1 s, then doubling, at most DELAY_MAX_MS. */
export function delayMsAfter(failures: number, free: number): number {
  if (failures < free) return 0;
  return Math.min(DELAY_MAX_MS, DELAY_FIRST_MS * 2 ** Math.min(30, failures - free));
}

export const ATTEMPT_LIMITS: AttemptLimits = {
  addressFailuresMax: ADDRESS_FAILURES_MAX,
  windowMs: LOGIN_WINDOW_MS,
  lockoutMs: LOCKOUT_MS,
  quietMs: QUIET_MS,
  pairDelayMsFor: (failures) => delayMsAfter(failures, PAIR_FREE_FAILURES),
  accountDelayMsFor: (failures) => delayMsAfter(failures, ACCOUNT_FREE_FAILURES),
  knownAddressMs: KNOWN_ADDRESS_MS,
  staleRowsSweptMax: 100,
};

/** After a checked attempt failed: whether it was the one that reached the address's limit and set a lock still running. */
export function lockSetBy(counted: CountedAttempt, nowMs: number): { lockedForMs: number } | null {
  const until = counted.address.failures >= ADDRESS_FAILURES_MAX ? counted.address.locked_until_ms : 0;
  return until > nowMs ? { lockedForMs: until - nowMs } : null;
}
