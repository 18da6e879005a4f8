// Authorize.net's answers in Payrail's terms: a createTransaction answer and
// a transaction's details (getTransactionDetails) to an outcome with its
// codes. Pure: no I/O, so unit tests cover every mapping.
import type { ChargeDeclineCode } from '../../domain/card-results.ts';
import type { AuthorizationOutcome } from '../card-processor.ts';
import { centsOfWire } from './amounts.ts';
import { AuthorizeNetAnswerUnusable } from './client.ts';
import { avsCodeOf, chargeDeclineOf, cvvCodeOf, PARTIAL_APPROVAL_REASON, reasonClassOf } from './codes.ts';
import { itemsOf, type WireTransactionDetails, type WireTransactionResponse } from './wire.ts';

/** One transaction's answer, as the operations read it. */
export interface TransactionAnswer {
  readonly outcome: AuthorizationOutcome;
  /** The response reason code ("1", "2", "11", "311", ...); "" when none was given. */
  readonly reason: string;
  /** Authorize.net's transId; "" when it gave none (or "0", its "no transaction"). */
  readonly transId: string;
  readonly authCode: string;
  readonly avsResultCode: string;
  readonly cvvResultCode: string;
  readonly decline: ChargeDeclineCode | null;
  /** Set for a partial approval: the cents approved. */
  readonly authorizedCents?: number;
  readonly networkTransactionId?: string;
  /** A partial approval's split tender group, which Authorize.net holds until it is released. */
  readonly splitTenderId?: string;
}

/** Authorize.net's "no transaction" id ("0") as "". */
function transIdOf(value: string | undefined): string {
  return value === undefined || value === '0' ? '' : value;
}

/** The reason code of a transaction answer: the first error's code, else the first message's. */
export function reasonOf(response: WireTransactionResponse): string {
  return itemsOf(response.errors, 'error')[0]?.errorCode ?? itemsOf(response.messages, 'message')[0]?.code ?? '';
}

/** The cents a partial approval approved: prePaidCard.approvedAmount, else the split tender's; undefined when none is given. */
function approvedCentsOf(response: WireTransactionResponse): number | undefined {
  const approved = response.prePaidCard?.approvedAmount ?? itemsOf(response.splitTenderPayments, 'splitTenderPayment')[0]?.approvedAmount;
  return approved === undefined ? undefined : centsOfWire(approved, 'approvedAmount');
}

/**
 * A createTransaction answer's transaction. responseCode 1 approved, 2
 * declined, 3 error, 4 held for review; an error about the card (a wrong
 * number, an expired card) is a decline, any other error a failure (no
 * money moved, the request may be tried anew). 4 with reason 295 is a
 * partial approval, which is an approval of what it approved: without its
 * approvedAmount and splitTenderId Payrail cannot know what was approved nor
 * release it, so that answer is an unknown outcome.
 */
export function transactionAnswerOf(response: WireTransactionResponse, requestedCents: number): TransactionAnswer {
  const reason = reasonOf(response);
  const base = {
    reason,
    transId: transIdOf(response.transId),
    authCode: response.authCode ?? '',
    avsResultCode: avsCodeOf(response.avsResultCode),
    cvvResultCode: cvvCodeOf(response.cvvResultCode),
    ...(response.networkTransId === undefined || response.networkTransId === '' ? {} : { networkTransactionId: response.networkTransId }),
  };
  const code = response.responseCode;
  if (code === '1' || (code === '4' && reason === PARTIAL_APPROVAL_REASON)) {
    const approvedCents = approvedCentsOf(response);
    if (code === '4' && (approvedCents === undefined || response.splitTenderId === undefined || response.splitTenderId === ''))
      throw new AuthorizeNetAnswerUnusable('authorize-net: a partial approval without its approvedAmount or splitTenderId');
    const partial = approvedCents !== undefined && approvedCents > 0 && approvedCents < requestedCents;
    const group = partial && response.splitTenderId !== undefined && response.splitTenderId !== '' ? { splitTenderId: response.splitTenderId } : {};
    return { ...base, outcome: 'approved', decline: null, ...(partial ? { authorizedCents: approvedCents } : {}), ...group };
  }
  if (code === '4') return { ...base, authCode: '', outcome: 'pending', decline: null };
  if (code === '2') {
    const reasonClass = reasonClassOf(reason);
    return { ...base, authCode: '', outcome: 'declined', decline: chargeDeclineOf(reasonClass === 'error' ? 'declined' : reasonClass) };
  }
  if (code === '3') {
    const reasonClass = reasonClassOf(reason);
    const outcome = reasonClass === 'error' ? 'failed' : 'declined';
    return { ...base, authCode: '', outcome, decline: chargeDeclineOf(reasonClass) };
  }
  throw new AuthorizeNetAnswerUnusable(`authorize-net: an answer with responseCode ${JSON.stringify(code ?? null)}`);
}

/** transactionStatus words (getTransactionDetails, getTransactionList) by what they mean for Payrail. */
const STATUS_OUTCOMES: Readonly<Record<string, AuthorizationOutcome>> = {
  FDSPendingReview: 'pending',
  FDSAuthorizedPendingReview: 'pending',
  underReview: 'pending',
  authorizedPendingCapture: 'approved',
  capturedPendingSettlement: 'approved',
  settledSuccessfully: 'approved',
  // A partial approval whose split-tender group is not released yet (operations.ts releases it).
  authorizedPendingRelease: 'approved',
  // Approved by the merchant's review and on its way to one of the above.
  approvedReview: 'approved',
  refundPendingSettlement: 'approved',
  refundSettledSuccessfully: 'approved',
  declined: 'declined',
  voided: 'declined',
  expired: 'declined',
  failedReview: 'declined',
  generalError: 'failed',
  communicationError: 'failed',
  settlementError: 'failed',
};

/** Statuses of a capture (or of an authCapture): captured, settled or on the way to it. */
export const CAPTURED_STATUSES: ReadonlySet<string> = new Set(['capturedPendingSettlement', 'settledSuccessfully']);

/** A transaction's details in Payrail's terms; throws for a status Payrail does not know (an unknown outcome, asked again later). */
export function detailsAnswerOf(details: WireTransactionDetails): TransactionAnswer {
  const status = details.transactionStatus ?? '';
  const outcome = Object.hasOwn(STATUS_OUTCOMES, status) ? STATUS_OUTCOMES[status] : undefined;
  if (outcome === undefined)
    throw new AuthorizeNetAnswerUnusable(`authorize-net: transaction status ${JSON.stringify(status).slice(0, 60)} is not one Payrail knows`);
  const reason = details.responseReasonCode === undefined ? '' : String(details.responseReasonCode);
  const requestedCents = details.requestedAmount === undefined ? undefined : centsOfWire(details.requestedAmount, 'requestedAmount');
  const authCents = details.authAmount === undefined ? undefined : centsOfWire(details.authAmount, 'authAmount');
  const partial = outcome === 'approved' && requestedCents !== undefined && authCents !== undefined && authCents > 0 && authCents < requestedCents;
  const reasonClass = reasonClassOf(reason);
  return {
    outcome,
    reason,
    transId: transIdOf(details.transId),
    authCode: outcome === 'approved' ? (details.authCode ?? '') : '',
    avsResultCode: avsCodeOf(details.AVSResponse),
    cvvResultCode: cvvCodeOf(details.cardCodeResponse),
    decline: outcome === 'declined' ? chargeDeclineOf(reasonClass === 'error' ? 'declined' : reasonClass) : outcome === 'failed' ? 'processor_error' : null,
    ...(partial ? { authorizedCents: authCents } : {}),
    // Only a group still held needs releasing.
    ...(status === 'authorizedPendingRelease' && details.splitTenderId !== undefined && details.splitTenderId !== ''
      ? { splitTenderId: details.splitTenderId }
      : {}),
    ...(details.networkTransId === undefined || details.networkTransId === '' ? {} : { networkTransactionId: details.networkTransId }),
  };
}
