// A panel user's second factor and the checks that want a fresh proof of
// identity: enrolling TOTP (password and a first code, then recovery codes
// shown once; replacing one also takes a code of the current factor), removing it (merchant users only: operators must keep one),
// re-authentication before credentials are created or rotated, and the
// one-time use of a code. Each check is counted for lock-out and audited
// (checked-attempt.ts).
import type { AuditAction } from '../../domain/audit.ts';
import { fail } from '../../errors.ts';
import type { SecondFactorClaim } from '../../store/panel/attempt-work.ts';
import type { PanelUserRow } from '../../store/panel-users.ts';
import { type Attempt, type AttemptOutcome, checkedAttempt } from './checked-attempt.ts';
import type { PanelDeps } from './deps.ts';
import { verifyPassword } from './passwords.ts';
import { hashToken, type SessionUser } from './sessions.ts';
import { hashRecoveryCode, isRecoveryCode, isTotpSecret, newRecoveryCodes, normalizeCode, totpStep } from './totp.ts';

/**
 * Reads a second-factor code of the user: a TOTP code's time step, or the
 * hash of what looks like a recovery code, or null when it is neither. The
 * store claims it in the attempt's transaction, by one conditional statement
 * (a step later than any accepted before, an unused recovery code), so it
 * works once.
 */
export function readSecondFactor(user: PanelUserRow, code: string, nowMs: number): SecondFactorClaim {
  const text = normalizeCode(code);
  const step = user.totp_secret === null ? null : totpStep(user.totp_secret, user.email, text, nowMs);
  if (step !== null) return { totpStep: step };
  if (user.totp_secret !== null && isRecoveryCode(text)) return { recoveryCodeHash: hashRecoveryCode(text) };
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
  /** When a second factor is replaced: a code of the current one (TOTP or a recovery code); the new one's code is `code`. */
  readonly currentCode?: string;
  readonly address: string;
}

/** A checked attempt of the session's user, audited as `action`: the password first, then `commit`. */
function provenAttempt<T>(deps: PanelDeps, proof: SessionProof, action: AuditAction, prepare: Attempt<T>['prepare']): Promise<AttemptOutcome<T>> {
  return checkedAttempt<T>(deps, {
    email: proof.user.email,
    address: proof.address,
    describe: () => ({
      actor: actorOf(proof.user, proof.address),
      event: { action, target: proof.user.userId, merchantId: proof.user.merchantId },
    }),
    precheck: (user) => passwordProblem(proof.password, user),
    prepare,
  });
}

/** Re-authentication: the password, and a code when the user has a second factor, recorded on the session as fresh. */
export async function reauthenticate(deps: PanelDeps, proof: SessionProof): Promise<AttemptOutcome<true>> {
  return provenAttempt<true>(deps, proof, 'panel.reauth', (user, nowMs) => {
    const claim = user.totp_secret !== null ? { claim: readSecondFactor(user, proof.code, nowMs) } : {};
    return { work: { kind: 'reauthenticate', userId: user.id, ...claim, tokenHash: hashToken(proof.token) }, value: true as const };
  });
}

/**
 * Enrols a TOTP secret: the password and a code the authenticator computed
 * from `secret` (proving it was scanned) must be right. Replaces any earlier
 * secret and recovery codes; returns the new recovery codes, to be shown once.
 * Replacing a factor also takes a code of the current one (a TOTP code or a
 * recovery code, claimed once): a stolen password and session alone cannot
 * move the second factor to the thief's phone.
 */
export async function enrolTotp(deps: PanelDeps, proof: SessionProof & { secret: string }): Promise<AttemptOutcome<{ recoveryCodes: string[] }>> {
  if (!isTotpSecret(proof.secret)) fail('invalid_request', 'the enrolment form was changed; start again');
  const recoveryCodes = newRecoveryCodes();
  const recoveryCodeHashes = recoveryCodes.map(hashRecoveryCode);
  return provenAttempt<{ recoveryCodes: string[] }>(deps, proof, 'panel.totp_enrol', (user, nowMs) => {
    const step = totpStep(proof.secret, user.email, normalizeCode(proof.code), nowMs);
    const current = user.totp_secret === null ? {} : { currentClaim: readSecondFactor(user, proof.currentCode ?? '', nowMs) };
    const tokenHash = hashToken(proof.token);
    const work = { kind: 'enrol_totp', userId: user.id, secret: proof.secret, totpStep: step, ...current, recoveryCodeHashes, tokenHash } as const;
    return { work, value: { recoveryCodes } };
  });
}

/** Removes the second factor of a merchant user (operators must keep theirs): the password and a current code must be right. */
export async function removeTotp(deps: PanelDeps, proof: SessionProof): Promise<AttemptOutcome<true>> {
  if (proof.user.role === 'operator') fail('invalid_request', 'operators must keep a second factor; enrol a new phone instead');
  return provenAttempt<true>(deps, proof, 'panel.totp_disable', (user, nowMs) => ({
    work: { kind: 'remove_totp', userId: user.id, claim: readSecondFactor(user, proof.code, nowMs) },
    value: true as const,
  }));
}
