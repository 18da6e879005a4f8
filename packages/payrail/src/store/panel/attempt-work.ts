// The work a checked panel attempt does once its secrets proved right, one
// kind per check (sign-in, its code step, re-authentication, enrolling and
// removing a second factor). Codes arrive already read by the flow (which
// holds the TOTP and hashing rules): a TOTP time step or a recovery code's
// hash, each claimed here by one conditional statement, so it works once.
import type { Tx } from '../db.ts';
import { deleteRecoveryCodes, replaceRecoveryCodes, useRecoveryCode } from '../panel-recovery-codes.ts';
import { deleteExpiredSessions, insertSession, markSessionAuthenticated } from '../panel-sessions.ts';
import { claimTotpStep, setTotp } from '../panel-users.ts';

/** A second-factor code as the flow read it: a TOTP step, a recovery code's hash, or neither (wrong). */
export type SecondFactorClaim = { readonly totpStep: number } | { readonly recoveryCodeHash: string } | null;

export type AttemptWork =
  | {
      readonly kind: 'open_session';
      /** Sessions idle since before this are swept at sign-in, with the expired ones. */
      readonly idleSinceMs: number;
      readonly session: { token_hash: string; user_id: string; created_at_ms: number; expires_at_ms: number; code_pending: boolean };
    }
  | { readonly kind: 'complete_code'; readonly userId: string; readonly claim: SecondFactorClaim; readonly tokenHash: string; readonly expiresAtMs: number }
  /** `claim` is absent for a user without a second factor (the password alone proves it). */
  | { readonly kind: 'reauthenticate'; readonly userId: string; readonly claim?: SecondFactorClaim; readonly tokenHash: string }
  | {
      readonly kind: 'enrol_totp';
      readonly userId: string;
      readonly secret: string;
      /** The step of the code computed from the new secret; null when the code was wrong. */
      readonly totpStep: number | null;
      /**
       * A code of the factor being replaced (its TOTP or a recovery code),
       * claimed before anything changes; absent when the user has none yet.
       */
      readonly currentClaim?: SecondFactorClaim;
      readonly recoveryCodeHashes: readonly string[];
      readonly tokenHash: string;
    }
  | { readonly kind: 'remove_totp'; readonly userId: string; readonly claim: SecondFactorClaim };

/** Claims a second-factor code of the user; false (nothing written) when it is wrong or was used. */
async function claimSecondFactor(tx: Tx, userId: string, claim: SecondFactorClaim, nowMs: number): Promise<boolean> {
  if (claim === null) return false;
  if ('totpStep' in claim) return claimTotpStep(tx, userId, claim.totpStep);
  return useRecoveryCode(tx, userId, claim.recoveryCodeHash, nowMs);
}

/** Does the work; answers why it was refused, or null when done (a code claimed before its session was found ended stays used). */
export async function doAttemptWork(tx: Tx, work: AttemptWork, nowMs: number): Promise<string | null> {
  switch (work.kind) {
    case 'open_session':
      await deleteExpiredSessions(tx, nowMs, work.idleSinceMs);
      await insertSession(tx, work.session);
      return null;
    case 'complete_code':
      if (!(await claimSecondFactor(tx, work.userId, work.claim, nowMs))) return 'wrong or reused code';
      if (!(await markSessionAuthenticated(tx, work.tokenHash, nowMs, { expiresAtMs: work.expiresAtMs }))) return 'session ended';
      return null;
    case 'reauthenticate':
      if (work.claim !== undefined && !(await claimSecondFactor(tx, work.userId, work.claim, nowMs))) return 'wrong or reused code';
      if (!(await markSessionAuthenticated(tx, work.tokenHash, nowMs, null))) return 'session ended';
      return null;
    case 'enrol_totp':
      if (work.totpStep === null) return 'wrong code';
      if (work.currentClaim !== undefined && !(await claimSecondFactor(tx, work.userId, work.currentClaim, nowMs))) return 'wrong or reused current code';
      await setTotp(tx, work.userId, { secret: work.secret, enrolledAtMs: nowMs });
      await claimTotpStep(tx, work.userId, work.totpStep);
      await replaceRecoveryCodes(tx, work.userId, work.recoveryCodeHashes, nowMs);
      await markSessionAuthenticated(tx, work.tokenHash, nowMs, null);
      return null;
    case 'remove_totp':
      if (!(await claimSecondFactor(tx, work.userId, work.claim, nowMs))) return 'wrong or reused code';
      await setTotp(tx, work.userId, null);
      await deleteRecoveryCodes(tx, work.userId);
      return null;
  }
}
