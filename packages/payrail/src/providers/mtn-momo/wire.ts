// MoMo's wire types (the Disbursement API reference on momodeveloper.mtn.com)
// and their parsing: every field read from an answer is checked here, so the
// operations see either a well-formed value or an AnswerUnusable error.
import { MtnMomoAnswerUnusable } from './client.ts';

/** POST /disbursement/token/ answers this. */
export interface WireToken {
  readonly access_token: string;
  readonly token_type?: string;
  /** Seconds. */
  readonly expires_in: number;
}

/** POST /disbursement/v1_0/transfer takes this body. */
export interface WireTransferRequest {
  readonly amount: string;
  readonly currency: string;
  readonly externalId: string;
  readonly payee: { readonly partyIdType: 'MSISDN'; readonly partyId: string };
  readonly payerMessage: string;
  readonly payeeNote: string;
}

/** GET /disbursement/v1_0/transfer/{referenceId} answers this (and a callback carries the same shape). */
export interface WireTransferResult {
  readonly status: 'PENDING' | 'SUCCESSFUL' | 'FAILED';
  readonly financialTransactionId: string | null;
  readonly reason: string | null;
  readonly externalId: string | null;
}

/** MoMo's error body: {code, message}, the code one of its ErrorReason values. */
export interface WireError {
  readonly code: string;
  readonly message: string;
}

/** Identifiers and codes read from answers are short text; longer ones are not MoMo's. */
const ID_CHARS_MAX = 100;
const CODE_PATTERN = /^[A-Z][A-Z0-9_]{0,63}$/;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short identifier given as text or as a number (MoMo's own examples show financialTransactionId both ways). */
export function idText(value: unknown): string | null {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  // Printable ASCII only: identifiers end up in logs and the operator panel.
  return trimmed === '' || trimmed.length > ID_CHARS_MAX || !/^[ -~]+$/.test(trimmed) ? null : trimmed;
}

export function parseToken(body: unknown): WireToken {
  if (!isRecord(body) || typeof body.access_token !== 'string' || body.access_token === '' || body.access_token.length > 16_384) {
    throw new MtnMomoAnswerUnusable('mtn-momo token: the answer carries no access_token');
  }
  const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : typeof body.expires_in === 'string' ? Number(body.expires_in) : NaN;
  if (!Number.isFinite(expiresIn) || expiresIn <= 0) throw new MtnMomoAnswerUnusable('mtn-momo token: the answer carries no usable expires_in');
  return { access_token: body.access_token, expires_in: expiresIn, ...(typeof body.token_type === 'string' ? { token_type: body.token_type } : {}) };
}

/** A transfer's status, or null when the body is not one (a callback of something else, a broken answer). */
export function transferResultOf(body: unknown): WireTransferResult | null {
  if (!isRecord(body)) return null;
  const status = body.status;
  if (status !== 'PENDING' && status !== 'SUCCESSFUL' && status !== 'FAILED') return null;
  const reasonField = body.reason;
  // MoMo has sent `reason` both as a code and as {code, message}.
  const reason = typeof reasonField === 'string' ? reasonField : isRecord(reasonField) && typeof reasonField.code === 'string' ? reasonField.code : null;
  return {
    status,
    financialTransactionId: idText(body.financialTransactionId),
    reason: reason !== null && CODE_PATTERN.test(reason) ? reason : null,
    externalId: idText(body.externalId),
  };
}

/** MoMo's {code, message} error body, or null when the body is something else. */
export function errorOf(body: unknown): WireError | null {
  if (!isRecord(body) || typeof body.code !== 'string' || !CODE_PATTERN.test(body.code)) return null;
  return { code: body.code, message: typeof body.message === 'string' ? body.message.slice(0, 200) : '' };
}

/** The account-holder check's {result: boolean}. */
export function activeResultOf(body: unknown): boolean | null {
  return isRecord(body) && typeof body.result === 'boolean' ? body.result : null;
}

/** GET /disbursement/v1_0/account/balance answers {availableBalance, currency}. */
export function balanceOf(body: unknown): { readonly availableBalance: string; readonly currency: string } | null {
  if (!isRecord(body)) return null;
  const available = typeof body.availableBalance === 'number' ? String(body.availableBalance) : body.availableBalance;
  if (typeof available !== 'string' || !/^-?[0-9]{1,20}(\.[0-9]{1,6})?$/.test(available)) return null;
  if (typeof body.currency !== 'string' || !/^[A-Z]{3}$/.test(body.currency)) return null;
  return { availableBalance: available, currency: body.currency };
}
