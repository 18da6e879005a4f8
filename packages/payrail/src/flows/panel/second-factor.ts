// A panel user's second factor and the checks that want a fresh proof of
// identity: enrolling TOTP (password and a first code, then recovery codes
// shown once), removing it (merchant users only: operators must keep one),
// re-authentication before credentials are created or rotated, and the
// one-time use of a code. Each check is counted for lock-out and audited
// (checked-attempt.ts).
import type { AuditAction } from '../../domain/audit.ts';
import { fail } from '../../errors.ts';
import type { Txn } from '../../store/db.ts';
import { deleteRecoveryCodes, replaceRecoveryCodes, useRecoveryCode } from '../../store/panel-recovery-codes.ts';
import { markSessionAuthenticated } from '../../store/panel-sessions.ts';
import { claimTotpStep, type PanelUserRow, setTotp } from '../../store/panel-users.ts';
import { type Attempt, type AttemptOutcome, checkedAttempt } from './checked-attempt.ts';
import type { PanelDeps } from './deps.ts';
import { verifyPassword } from './passwords.ts';
import { hashToken, type SessionUser } from './sessions.ts';
import { hashRecoveryCode, isRecoveryCode, isTotpSecret, newRecoveryCodes, normalizeCode, totpStep } from './totp.ts';

/**
 * Uses a second-factor code of the user, inside the caller's transaction: a
 * TOTP code whose time step is later than any accepted before, or an unused
 * recovery code. Each is claimed by one conditional statement, so it works
 * once. Returns which kind was used, or null (nothing written).
 */
export async function claimSecondFactor(tx: Txn, user: PanelUserRow, code: string, nowMs: number): Promise<'totp' | 'recovery code' | null> {
  const text = normalizeCode(code);
  const step = user.totp_secret === null ? null : totpStep(user.totp_secret, user.email, text, nowMs);
  if (step !== null) return (await claimTotpStep(tx, user.id, step)) ? 'totp' : null;
  if (user.totp_secret !== null && isRecoveryCode(text)) return (await useRecoveryCode(tx, user.id, hashRecoveryCode(text), nowMs)) ? 'recovery code' : null;
  return null;
}

/** The session user as the actor of an audit event. */
function actorOf(user: SessionUser, address: string) {
  return { kind: 'user' as const, id: user.userId, label: user.email, address };
}

async function passwordProblem(password: string, user: PanelUserRow | undefined): Promise<string | null> {
  return user !== undefined && (await verifyPassword(password, user.password_hash)) ? null : 'wrong password';
}

export interface SessionProof {
  /** The session cookie's token: the proof is recorded on that session. */
  readonly token: string;
  readonly user: SessionUser;
  readonly password: string;
  /** The current code, when the user has a second factor. */
  readonly code: string;
  readonly address: string;
}

/** A checked attempt of the session's user, audited as `action`: the password first, then `commit`. */
function provenAttempt<T>(deps: PanelDeps, proof: SessionProof, action: AuditAction, commit: Attempt<T>['commit']): Promise<AttemptOutcome<T>> {
  return checkedAttempt<T>(deps, {
    email: proof.user.email,
    address: proof.address,
    describe: () => ({
      actor: actorOf(proof.user, proof.address),
      event: { action, target: proof.user.userId, merchantId: proof.user.merchantId },
    }),
    precheck: (user) => passwordProblem(proof.password, user),
    commit,
  });
}

/** Re-authentication: the password, and a code when the user has a second factor, recorded on the session as fresh. */
export async function reauthenticate(deps: PanelDeps, proof: SessionProof): Promise<AttemptOutcome<true>> {
  return provenAttempt<true>(deps, proof, 'panel.reauth', async (tx, user, nowMs) => {
    if (user.totp_secret !== null && (await claimSecondFactor(tx, user, proof.code, nowMs)) === null) return { refused: 'wrong or reused code' };
    if (!(await markSessionAuthenticated(tx, hashToken(proof.token), nowMs, null))) return { refused: 'session ended' };
    return { value: true as const };
  });
}

/**
 * Enrols a TOTP secret: the password and a code the authenticator computed
 * from `secret` (proving it was scanned) must be right. Replaces any earlier
 * secret and recovery codes; returns the new recovery codes, to be shown once.
 */
export async function enrolTotp(deps: PanelDeps, proof: SessionProof & { secret: string }): Promise<AttemptOutcome<{ recoveryCodes: string[] }>> {
  if (!isTotpSecret(proof.secret)) fail('invalid_request', 'the enrolment form was changed; start again');
  const recoveryCodes = newRecoveryCodes();
  return provenAttempt<{ recoveryCodes: string[] }>(deps, proof, 'panel.totp_enrol', async (tx, user, nowMs) => {
    const step = totpStep(proof.secret, user.email, normalizeCode(proof.code), nowMs);
    if (step === null) return { refused: 'wrong code' };
    await setTotp(tx, user.id, { secret: proof.secret, enrolledAtMs: nowMs });
    await claimTotpStep(tx, user.id, step);
    await replaceRecoveryCodes(tx, user.id, recoveryCodes.map(hashRecoveryCode), nowMs);
    await markSessionAuthenticated(tx, hashToken(proof.token), nowMs, null);
    return { value: { recoveryCodes } };
  });
}

/** Removes the second factor of a merchant user (operators must keep theirs): the password and a current code must be right. */
export async function removeTotp(deps: PanelDeps, proof: SessionProof): Promise<AttemptOutcome<true>> {
  if (proof.user.role === 'operator') fail('invalid_request', 'operators must keep a second factor; enrol a new phone instead');
  return provenAttempt<true>(deps, proof, 'panel.totp_disable', async (tx, user, nowMs) => {
    if ((await claimSecondFactor(tx, user, proof.code, nowMs)) === null) return { refused: 'wrong or reused code' };
    await setTotp(tx, user.id, null);
    await deleteRecoveryCodes(tx, user.id);
    return { value: true as const };
  });
}
