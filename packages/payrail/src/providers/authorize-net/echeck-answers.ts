// Authorize.net's eCheck answers in the ACH network's terms (ach-network.ts):
// a createTransaction answer to a submission's outcome, and a transaction's
// details (getTransactionDetails) to where the entry is. Pure: no I/O, so
// unit tests cover every mapping. Statuses as the Transaction Details API
// names them (developer community "Getting transaction details" list,
// transactionStatusEnum in AnetApiSchema.xsd).
import { RETURN_CODE_PATTERN } from '../../domain/ach.ts';
import type { AchEntryReport, AchSubmitResult } from '../ach-network.ts';
import { AuthorizeNetAnswerUnusable } from './client.ts';
import { reasonOf } from './responses.ts';
import { itemsOf, type WireReturnedItem, type WireTransactionDetails, type WireTransactionResponse } from './wire.ts';

/**
 * Reason codes of a response 3 (error) that refuse the bank account itself,
 * as a decline: 9 "The ABA code is invalid", 10 "The account number is
 * invalid", 101 "The given name on the account and/or the account type does
 * not match the actual account". Any other error is a failure: nothing
 * moved, and the request as written cannot succeed.
 */
const ACCOUNT_REASONS: ReadonlySet<string> = new Set(['9', '10', '101']);

/** What a createTransaction answer says about a submission, before duplicates and credentials are looked at. */
export type EcheckAnswer =
  | { readonly kind: 'outcome'; readonly result: AchSubmitResult }
  /** Reason 11: a re-send within the duplicate window; transId names the original ("" when the answer did not). */
  | { readonly kind: 'duplicate'; readonly transId: string }
  /** Reason 13: the credentials were refused; the outcome is unknown (client.ts). */
  | { readonly kind: 'credentials_refused' };

/** Authorize.net's "no transaction" id ("0") as "". */
export function transIdOf(value: string | undefined): string {
  return value === undefined || value === '0' ? '' : value;
}

/** The answer's first error text (or message description): Authorize.net's words, which name fields, never their values. */
function answerText(response: WireTransactionResponse): string {
  const errors = itemsOf(response.errors, 'error');
  const messages = itemsOf(response.messages, 'message');
  return (errors[0]?.errorText ?? messages[0]?.description ?? '').slice(0, 255);
}

/**
 * A createTransaction answer to an eCheck: 1 accepted, 2 declined, 3 an
 * error (a decline when it refuses the account, else a failure), 4 held for
 * review, which is no outcome yet: Payrail asks again, and the re-send
 * (a duplicate) finds what the review decided.
 */
export function echeckAnswerOf(response: WireTransactionResponse): EcheckAnswer {
  const reason = reasonOf(response);
  if (reason === '13') return { kind: 'credentials_refused' };
  if (reason === '11') return { kind: 'duplicate', transId: transIdOf(response.transId) };
  const transId = transIdOf(response.transId);
  switch (response.responseCode) {
    case '1':
      if (transId === '') throw new AuthorizeNetAnswerUnusable('authorize-net: an accepted eCheck without a transaction id');
      return { kind: 'outcome', result: { outcome: 'accepted', networkRef: transId, declineMessage: null } };
    case '2':
      return { kind: 'outcome', result: { outcome: 'declined', networkRef: transId, declineMessage: messageOf(reason, response) } };
    case '3': {
      const outcome = ACCOUNT_REASONS.has(reason) ? 'declined' : 'failed';
      return { kind: 'outcome', result: { outcome, networkRef: transId, declineMessage: messageOf(reason, response) } };
    }
    case '4':
      throw new AuthorizeNetAnswerUnusable('authorize-net: the eCheck is held for review');
    default:
      throw new AuthorizeNetAnswerUnusable(`authorize-net: an eCheck answer with responseCode ${JSON.stringify(response.responseCode ?? null).slice(0, 20)}`);
  }
}

function messageOf(reason: string, response: WireTransactionResponse): string {
  const text = answerText(response);
  return reason === '' ? text : `${reason}: ${text}`;
}

/** Statuses of an eCheck the gateway took: it will settle (or has), unless voided or returned. */
const ACCEPTED_STATUSES: ReadonlySet<string> = new Set([
  'capturedPendingSettlement',
  'settledSuccessfully',
  'refundPendingSettlement',
  'refundSettledSuccessfully',
  // A settlement batch the processor rejected: not final, the merchant recovers the batch.
  'settlementError',
  // Voided after it was taken (a void asked while the submission's answer was lost).
  'voided',
]);

/** Statuses of an eCheck waiting for a person (the merchant's fraud review or Authorize.net's eCheck review). */
const REVIEW_STATUSES: ReadonlySet<string> = new Set(['FDSPendingReview', 'FDSAuthorizedPendingReview', 'underReview', 'approvedReview']);

/** Statuses that end an eCheck without moving money. */
const REFUSED_STATUSES: Readonly<Record<string, 'declined' | 'failed'>> = {
  declined: 'declined',
  failedReview: 'declined',
  generalError: 'failed',
  communicationError: 'failed',
};

/**
 * The outcome of a submission found by its duplicate: the original's
 * details. A transaction of another invoice number is not this entry's
 * (an answer Payrail cannot use).
 */
export function submitResultOfDetails(details: WireTransactionDetails, reference: string): AchSubmitResult {
  const invoiceNumber = details.order?.invoiceNumber;
  if (invoiceNumber !== undefined && invoiceNumber !== reference)
    throw new AuthorizeNetAnswerUnusable('authorize-net: the duplicate names a transaction of another invoice number');
  const transId = transIdOf(details.transId);
  if (transId === '') throw new AuthorizeNetAnswerUnusable('authorize-net: transaction details without a transId');
  const status = details.transactionStatus ?? '';
  if (ACCEPTED_STATUSES.has(status) || returnedItemsOf(details).length > 0) return { outcome: 'accepted', networkRef: transId, declineMessage: null };
  if (REVIEW_STATUSES.has(status)) throw new AuthorizeNetAnswerUnusable('authorize-net: the eCheck is held for review');
  const refused = Object.hasOwn(REFUSED_STATUSES, status) ? REFUSED_STATUSES[status] : undefined;
  if (refused === undefined)
    throw new AuthorizeNetAnswerUnusable(`authorize-net: eCheck status ${JSON.stringify(status).slice(0, 60)} is not one Payrail knows`);
  const reason = details.responseReasonCode === undefined ? '' : String(details.responseReasonCode);
  const text = (details.responseReasonDescription ?? '').slice(0, 255);
  return { outcome: refused, networkRef: transId, declineMessage: reason === '' ? text : `${reason}: ${text}` };
}

function returnedItemsOf(details: WireTransactionDetails): readonly WireReturnedItem[] {
  return itemsOf(details.returnedItems, 'returnedItem');
}

/** A UTC time of an answer in ms; throws (an answer Payrail cannot read) when it is none. */
function utcMs(value: string | undefined, field: string): number {
  const ms = Date.parse(value ?? '');
  if (!Number.isFinite(ms)) throw new AuthorizeNetAnswerUnusable(`authorize-net: ${field} is not a time`);
  return ms;
}

/**
 * A NACHA return code as Payrail keeps it (R plus two digits): Authorize.net
 * reports "R01"; a bare number ("1", "01") is read as the same code.
 */
export function returnCodeOf(code: string | undefined): string {
  const text = (code ?? '').trim().toUpperCase();
  const digits = /^R?([0-9]{1,2})$/.exec(text);
  const normal = digits === null ? text : `R${digits[1]!.padStart(2, '0')}`;
  if (!RETURN_CODE_PATTERN.test(normal))
    throw new AuthorizeNetAnswerUnusable(`authorize-net: return code ${JSON.stringify(text).slice(0, 20)} is not a NACHA code`);
  return normal;
}

/**
 * Where an accepted eCheck is, from its details:
 * - returnedItems listed: returned, by the first return (an entry is returned once);
 * - captured or refund pending settlement, under review, or a batch in error: pending;
 * - settled (settledSuccessfully, refundSettledSuccessfully): originated at
 *   the batch's settlementTimeUTC; Payrail settles it on its own rule;
 * - voided: voided. A transaction the gateway ended without moving money
 *   (declined or failed review, an error) also reads voided: that is what
 *   happened to the money.
 * Any other status is an answer Payrail cannot use: it asks again later.
 */
export function achReportOf(details: WireTransactionDetails): AchEntryReport {
  const returned = returnedItemsOf(details);
  if (returned.length > 0) {
    const first = [...returned].sort((a, b) => utcMs(a.dateUTC, 'returnedItem.dateUTC') - utcMs(b.dateUTC, 'returnedItem.dateUTC'))[0]!;
    const reason = first.description === undefined || first.description.trim() === '' ? null : first.description.trim().slice(0, 255);
    return { state: 'returned', returnedAtMs: utcMs(first.dateUTC, 'returnedItem.dateUTC'), returnCode: returnCodeOf(first.code), returnReason: reason };
  }
  const status = details.transactionStatus ?? '';
  switch (status) {
    case 'capturedPendingSettlement':
    case 'refundPendingSettlement':
    case 'settlementError':
    case 'FDSPendingReview':
    case 'FDSAuthorizedPendingReview':
    case 'underReview':
    case 'approvedReview':
      return { state: 'pending' };
    case 'settledSuccessfully':
    case 'refundSettledSuccessfully':
      return { state: 'originated', originatedAtMs: utcMs(details.batch?.settlementTimeUTC, 'batch.settlementTimeUTC') };
    case 'voided':
    case 'declined':
    case 'failedReview':
    case 'generalError':
    case 'communicationError':
      return { state: 'voided' };
    default:
      throw new AuthorizeNetAnswerUnusable(`authorize-net: eCheck status ${JSON.stringify(status).slice(0, 60)} is not one Payrail knows`);
  }
}

/** Statuses past the point of voiding: the eCheck settled (it can only be refunded). */
export const TOO_LATE_TO_VOID_STATUSES: ReadonlySet<string> = new Set(['settledSuccessfully', 'refundSettledSuccessfully', 'returnedItem']);
