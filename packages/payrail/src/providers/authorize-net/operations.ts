// The CardProcessor calls on Authorize.net's createTransaction and
// getTransactionDetails. Every money-moving request carries the reference as
// invoiceNumber and refId, and the 8-hour duplicate window: Payrail re-sends
// the same request when it could not know the first one's fate, and
// Authorize.net answers a duplicate (reason 11) naming the original
// transaction, whose details are then reported. A capture or void asked again
// is answered "already captured" (311) or "already voided" (310), read the
// same way. Nothing here logs a request body.
import type { Logger } from 'pino';
import type {
  AuthorizationRequest,
  AuthorizationResult,
  CaptureRequest,
  CreditRequest,
  OperationResult,
  PollRequest,
  RefundRequest,
  VerificationResult,
  VerifyRequest,
  VoidRequest,
} from '../card-processor.ts';
import { type CreateAnswer, createTransaction, releaseSplitTenderGroup, transactionDetails } from './api.ts';
import { AuthorizeNetAnswerUnusable, AuthorizeNetUnknownOutcome } from './client.ts';
import { ALREADY_VOIDED_REASON, DUPLICATE_REASON, NO_ZERO_AUTH_REASON, UNKNOWN_OUTCOME_REASONS } from './codes.ts';
import { authorizationRequest, captureRequest, creditRequest, type RequestFields, refundRequest, voidRequest } from './requests.ts';
import { CAPTURED_STATUSES, detailsAnswerOf, type TransactionAnswer, transactionAnswerOf } from './responses.ts';
import { type AuthorizeNetSettings, REVIEW_RETRY_AFTER_MS } from './settings.ts';

/** What the operations need: the settings and a logger for what goes wrong without failing the call. */
export interface OperationContext {
  readonly settings: AuthorizeNetSettings;
  readonly log: Logger;
}

/** The smallest amount of the verification fallback, for processors without zero-dollar authorizations (reason 289). */
const VERIFY_FALLBACK_CENTS = 1;

/** A processorRef for an answer without a transaction (a refused request): never polled, only shown. */
function noTransactionRef(reference: string): string {
  return `anet-none-${reference}`;
}

/** A refused request as an answer: it failed, nothing moved. */
function refusedAnswer(answer: Extract<CreateAnswer, { kind: 'refused' }>): TransactionAnswer {
  return { outcome: 'failed', reason: answer.code, transId: '', authCode: '', avsResultCode: '', cvvResultCode: '', decline: 'processor_error' };
}

/**
 * Sends a money-moving request and answers its transaction's outcome. A
 * duplicate (a re-send within the window) is answered with the original
 * transaction's details: its transId is in the duplicate's answer.
 */
async function send(context: OperationContext, fields: RequestFields, requestedCents: number, signal: AbortSignal): Promise<TransactionAnswer> {
  const answer = await createTransaction(context.settings, fields, signal);
  if (answer.kind === 'refused') return refusedAnswer(answer);
  const mapped = transactionAnswerOf(answer.response, requestedCents);
  if (UNKNOWN_OUTCOME_REASONS.has(mapped.reason)) throw new AuthorizeNetUnknownOutcome(`authorize-net: reason ${mapped.reason}, the credentials were refused`);
  if (mapped.reason !== DUPLICATE_REASON) return mapped;
  if (mapped.transId === '') throw new AuthorizeNetAnswerUnusable('authorize-net: a duplicate answer without the original transaction');
  return detailsAnswerOf(await transactionDetails(context.settings, mapped.transId, signal));
}

/**
 * Releases a partial approval's split-tender group: Authorize.net holds a
 * partially approved transaction until its group is completed, and Payrail
 * takes the approved part as the whole charge. A release refused or
 * unanswered throws (an unknown outcome): recorded approved, the charge would
 * never settle. Payrail asks again, and the re-ask (a duplicate, or a poll
 * that finds authorizedPendingRelease) releases the group.
 */
async function releaseSplitTender(context: OperationContext, reference: string, splitTenderId: string, signal: AbortSignal): Promise<void> {
  if (await releaseSplitTenderGroup(context.settings, splitTenderId, signal)) return;
  context.log.warn({ reference }, 'authorize-net: split tender group not released');
  throw new AuthorizeNetAnswerUnusable('authorize-net: the split tender group of a partial approval was not released');
}

function authorizationResultOf(answer: TransactionAnswer, reference: string): AuthorizationResult {
  if ((answer.outcome === 'approved' || answer.outcome === 'pending') && answer.transId === '') {
    throw new AuthorizeNetAnswerUnusable(`authorize-net: an ${answer.outcome} answer without a transaction id`);
  }
  return {
    outcome: answer.outcome,
    processorRef: answer.transId === '' ? noTransactionRef(reference) : answer.transId,
    authCode: answer.outcome === 'approved' ? answer.authCode : '',
    avsResultCode: answer.avsResultCode,
    cvvResultCode: answer.cvvResultCode,
    decline: answer.outcome === 'approved' || answer.outcome === 'pending' ? null : (answer.decline ?? 'processor_error'),
    retryAfterMs: answer.outcome === 'pending' ? REVIEW_RETRY_AFTER_MS : 0,
    ...(answer.authorizedCents === undefined ? {} : { authorizedCents: answer.authorizedCents }),
    ...(answer.networkTransactionId === undefined ? {} : { networkTransactionId: answer.networkTransactionId }),
  };
}

/**
 * authCaptureTransaction for a charge captured at once (Payrail credits it
 * on approval and never calls capture), authOnlyTransaction for capture:
 * false (captured later by priorAuthCaptureTransaction).
 */
export async function authorize(context: OperationContext, request: AuthorizationRequest): Promise<AuthorizationResult> {
  const type = request.capture === false ? 'authOnlyTransaction' : 'authCaptureTransaction';
  const answer = await send(context, authorizationRequest(request, request.amountCents, type), request.amountCents, request.signal);
  if (answer.splitTenderId !== undefined) await releaseSplitTender(context, request.reference, answer.splitTenderId, request.signal);
  return authorizationResultOf(answer, request.reference);
}

/**
 * getTransactionDetails of a pending (held for review) authorization, or of a
 * transaction id a callback reported. A transaction of another invoice number
 * is not this charge's: nothing is recorded. A partial approval still held
 * (authorizedPendingRelease) is released, as authorize does.
 */
export async function poll(context: OperationContext, request: PollRequest): Promise<AuthorizationResult> {
  const details = await transactionDetails(context.settings, request.processorRef, request.signal);
  const invoiceNumber = details.order?.invoiceNumber;
  if (invoiceNumber !== undefined && invoiceNumber !== request.reference)
    throw new AuthorizeNetAnswerUnusable('authorize-net: the polled transaction belongs to another invoice number, not this charge');
  const answer = detailsAnswerOf(details);
  if (answer.splitTenderId !== undefined) await releaseSplitTender(context, request.reference, answer.splitTenderId, request.signal);
  return authorizationResultOf({ ...answer, transId: answer.transId === '' ? request.processorRef : answer.transId }, request.reference);
}

function operationResultOf(answer: TransactionAnswer, fallbackRef: string, declineAs: 'refund_declined' | null): OperationResult {
  // A capture, void or refund held for review has no answer yet: Payrail asks again later, and the re-send finds it.
  if (answer.outcome === 'pending') throw new AuthorizeNetAnswerUnusable('authorize-net: the operation is held for review');
  const processorRef = answer.transId === '' ? fallbackRef : answer.transId;
  if (answer.outcome === 'approved') return { outcome: 'approved', processorRef, authCode: declineAs === null ? '' : answer.authCode, decline: null };
  if (answer.outcome === 'failed') return { outcome: 'failed', processorRef, authCode: '', decline: 'processor_error' };
  return { outcome: 'declined', processorRef, authCode: '', decline: declineAs ?? answer.decline ?? 'card_declined' };
}

/** priorAuthCaptureTransaction; a refusal ("already captured", 311, among them) is checked against the transaction's details. */
export async function capture(context: OperationContext, request: CaptureRequest): Promise<OperationResult> {
  const answer = await send(context, captureRequest(request.reference, request.processorRef, request.amountCents), request.amountCents, request.signal);
  if (answer.outcome === 'approved' || answer.outcome === 'pending') return operationResultOf(answer, request.processorRef, null);
  // "Already captured" (311), or any other refusal: the transaction's status decides, so that a capture asked
  // again, or of an authorization that was captured at once, reports the capture that happened.
  const details = await transactionDetails(context.settings, request.processorRef, request.signal);
  if (CAPTURED_STATUSES.has(details.transactionStatus ?? '')) return { outcome: 'approved', processorRef: request.processorRef, authCode: '', decline: null };
  return operationResultOf(answer, request.processorRef, null);
}

/** voidTransaction; "already voided" is an approval (a void asked again). */
export async function voidCharge(context: OperationContext, request: VoidRequest): Promise<OperationResult> {
  const answer = await send(context, voidRequest(request.reference, request.processorRef), 0, request.signal);
  const voided = { outcome: 'approved', processorRef: request.processorRef, authCode: '', decline: null } as const;
  if (answer.outcome === 'approved') return operationResultOf(answer, request.processorRef, null);
  if (answer.reason === ALREADY_VOIDED_REASON) return voided;
  // A void re-sent within the duplicate window is answered with the original's details, whose status is
  // "voided" (send() reads that as a decline); any other refusal is checked the same way before it is reported.
  const details = await transactionDetails(context.settings, request.processorRef, request.signal);
  if (details.transactionStatus === 'voided') return voided;
  return operationResultOf(answer, request.processorRef, null);
}

/** A refused refund is refund_declined; an error of the gateway a failure. */
export async function refund(context: OperationContext, request: RefundRequest): Promise<OperationResult> {
  const answer = await send(context, refundRequest(request), request.amountCents, request.signal);
  return operationResultOf(answer, noTransactionRef(request.reference), 'refund_declined');
}

/** An unlinked credit (refundTransaction without refTransId). */
export async function credit(context: OperationContext, request: CreditRequest): Promise<OperationResult> {
  const answer = await send(context, creditRequest(request), request.amountCents, request.signal);
  return operationResultOf(answer, noTransactionRef(request.reference), 'refund_declined');
}

/**
 * A $0.00 authOnlyTransaction: the issuer checks the card, AVS and card code
 * and no money is held. Where the processor takes no zero-dollar
 * authorization for the card type (reason 289), a $0.01 authOnlyTransaction
 * is voided at once instead (a failed void is logged: the hold lapses by
 * itself). A verification held by the merchant's fraud filters is reported
 * approved: the issuer answered, and no money moves either way.
 */
export async function verify(context: OperationContext, request: VerifyRequest): Promise<VerificationResult> {
  let answer = await send(context, authorizationRequest(request, 0, 'authOnlyTransaction'), 0, request.signal);
  let fallback = false;
  if (answer.reason === NO_ZERO_AUTH_REASON) {
    fallback = true;
    answer = await send(context, authorizationRequest(request, VERIFY_FALLBACK_CENTS, 'authOnlyTransaction'), VERIFY_FALLBACK_CENTS, request.signal);
    // The re-sent fallback of a verification already voided reads "voided" in its details: that is an approval that was released.
    if (answer.outcome === 'declined' && answer.authCode === '' && answer.reason === '1') answer = { ...answer, outcome: 'approved', decline: null };
  }
  const outcome = answer.outcome === 'pending' ? 'approved' : answer.outcome;
  if (outcome === 'approved' && answer.transId === '') throw new AuthorizeNetAnswerUnusable('authorize-net: an approved verification without a transaction id');
  if (fallback && answer.outcome === 'approved') await voidFallback(context, request.reference, answer.transId, request.signal);
  return {
    outcome,
    processorRef: answer.transId === '' ? noTransactionRef(request.reference) : answer.transId,
    avsResultCode: answer.avsResultCode,
    cvvResultCode: answer.cvvResultCode,
    decline: outcome === 'approved' ? null : (answer.decline ?? 'processor_error'),
    ...(answer.networkTransactionId === undefined ? {} : { networkTransactionId: answer.networkTransactionId }),
  };
}

async function voidFallback(context: OperationContext, reference: string, transId: string, signal: AbortSignal): Promise<void> {
  try {
    const answer = await send(context, voidRequest(reference, transId), 0, signal);
    if (answer.outcome !== 'approved' && answer.reason !== ALREADY_VOIDED_REASON)
      context.log.warn({ reference, reason: answer.reason }, 'authorize-net: verification hold not voided');
  } catch (error) {
    context.log.warn({ reference, err: error instanceof Error ? error.message : 'error' }, 'authorize-net: verification hold void unanswered');
  }
}
