// Tokenization nonces: `nonce-` and 32 base62 symbols (about 190 bits), so
// they cannot be guessed; only a SHA-256 of a nonce is stored.
import crypto from 'node:crypto';
import { randomBase62 } from './ids.ts';

/** A nonce lives 15 minutes (docs/api-decisions.md section 8). */
export const NONCE_TTL_MS = 15 * 60_000;
const NONCE_BODY_LENGTH = 32;
export const NONCE_PATTERN = /^nonce-[0-9A-Za-z]{32}$/;

export function newNonce(): string {
  return `nonce-${randomBase62(NONCE_BODY_LENGTH)}`;
}

export function hashNonce(nonce: string): string {
  return crypto.hash('sha256', nonce, 'hex');
}
