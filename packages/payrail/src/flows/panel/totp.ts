// The second factor of panel accounts (PCI DSS 8.4): TOTP codes (RFC 6238:
// 6 digits, 30-second steps, SHA-1, what every authenticator app reads)
// computed and checked by the otpauth library, and one-time recovery codes
// for a lost phone. Codes are checked against the injected clock, one step
// either side for phones whose clock is a little off.
import crypto from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

const ISSUER = 'Payrail';
const SECRET_BYTES = 20;
/** Steps either side of now whose code is accepted. */
const STEP_WINDOW = 1;
export const RECOVERY_CODES_ISSUED = 10;
/** Crockford's base32 without look-alikes: a code read off paper is typed right. */
const RECOVERY_ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';
const RECOVERY_HALF_LENGTH = 5;
const TOTP_CODE_PATTERN = /^[0-9]{6}$/;
const RECOVERY_CODE_PATTERN = /^[2-9A-HJKMNP-TV-Z]{10}$/;
/** Base32 of SECRET_BYTES bytes (32 symbols); a secret posted back by the enrolment form must look like one. */
const SECRET_PATTERN = /^[A-Z2-7]{32}$/;

function totpOf(secret: string, email: string): TOTP {
  return new TOTP({ issuer: ISSUER, label: email, algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) });
}

/** A new secret for an enrolment, in base32, and the otpauth:// URI an authenticator app scans. */
export function newTotpSecret(email: string): { secret: string; uri: string } {
  const secret = new Secret({ size: SECRET_BYTES }).base32;
  return { secret, uri: totpOf(secret, email).toString() };
}

export function totpUri(secret: string, email: string): string {
  return totpOf(secret, email).toString();
}

export function isTotpSecret(text: string): boolean {
  return SECRET_PATTERN.test(text);
}

/** Spaces and dashes people type are dropped; letters are read upper-case. */
export function normalizeCode(text: string): string {
  return text.replace(/[\s-]/g, '').toUpperCase().slice(0, 20);
}

/** The time step of a right TOTP code at `nowMs`, or null when the code is not right. Replays are refused by the caller (the step is claimed once). */
export function totpStep(secret: string, email: string, code: string, nowMs: number): number | null {
  if (!TOTP_CODE_PATTERN.test(code)) return null;
  const totp = totpOf(secret, email);
  const delta = totp.validate({ token: code, timestamp: nowMs, window: STEP_WINDOW });
  return delta === null ? null : totp.counter({ timestamp: nowMs }) + delta;
}

export function isRecoveryCode(code: string): boolean {
  return RECOVERY_CODE_PATTERN.test(code);
}

function randomSymbols(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      // 240 = 8 * 30: bytes at or above it are dropped so every symbol is equally likely.
      if (byte < 240 && out.length < length) out += RECOVERY_ALPHABET[byte % RECOVERY_ALPHABET.length];
    }
  }
  return out;
}

/** New recovery codes as shown to the user ("ABCDE-FGHJK"), about 49 bits each. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES_ISSUED }, () => {
    const text = randomSymbols(RECOVERY_HALF_LENGTH * 2);
    return `${text.slice(0, RECOVERY_HALF_LENGTH)}-${text.slice(RECOVERY_HALF_LENGTH)}`;
  });
}

/** What is stored of a recovery code. Codes are random and sign-in attempts are counted, so a fast hash is enough. */
export function hashRecoveryCode(code: string): string {
  return crypto
    .createHash('sha256')
    .update(`payrail-recovery:${normalizeCode(code)}`)
    .digest('hex');
}
