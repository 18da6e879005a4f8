// The PayoutNetwork calls on MoMo's Disbursement API, each answered in
// Payrail's terms (providers/payout-network.ts):
// - transfer: 202 accepted; 409 (the X-Reference-Id exists, a resubmission
//   of a transfer MoMo took) accepted too; 400 refuses the request as
//   written, before anything moved: rejected with MoMo's code; 401 after a
//   fresh token, 403, 404 and 429 refuse this attempt only: unavailable (MoMo
//   documents no 404 for this call, so one comes from a wrong path or
//   gateway, not from a refusal of this payout); any 5xx
//   (MoMo documents NOT_ALLOWED, INVALID_CURRENCY, INTERNAL_PROCESSING_ERROR
//   and others as 500s without saying nothing was taken), another status, a
//   timeout or a dropped connection: thrown, the outcome unknown, and
//   Payrail resubmits under the same reference.
// - transfer status: PENDING, SUCCESSFUL, FAILED with its reason. A 404 for
//   a reference Payrail only polls after MoMo accepted it is an anomaly, not
//   a failure: thrown, so the payout stays processing and is asked about
//   again (after an unknown outcome Payrail resubmits, it never polls).
// - account holder: whether the number holds an active wallet.
// - balance: the disbursement account's available balance, for operators.
import type { Logger } from 'pino';
import type { Corridor } from '../../domain/corridors.ts';
import type { PayoutPollRequest, PayoutSubmission, PollOutcome, SubmitOutcome } from '../payout-network.ts';
import { callMomo, type MomoAnswer, type MomoCall, MtnMomoAnswerUnusable, MtnMomoUnknownOutcome } from './client.ts';
import { amountDecimalsOf, amountText, currencyOf, msisdnOf, targetEnvironmentOf } from './corridor.ts';
import { failureOf } from './reasons.ts';
import { FIRST_POLL_AFTER_MS, type MtnMomoSettings, NOTE_CHARS_MAX, PENDING_RETRY_AFTER_MS, PRODUCT_PATH } from './settings.ts';
import type { TokenCache } from './token.ts';
import { activeResultOf, balanceOf, errorOf, transferResultOf, type WireTransferRequest } from './wire.ts';

export interface OperationContext {
  readonly settings: MtnMomoSettings;
  readonly tokens: TokenCache;
  readonly timeoutMs: number;
  /** Sent as X-Callback-Url with every transfer; null: polling only. */
  readonly callbackUrl: string | null;
  /** The X-Target-Environment of a receiver look-up that names no corridor; null: such a look-up is refused. */
  readonly defaultTargetEnvironment: string | null;
  readonly log: Logger;
}

/** MoMo's X-Reference-Id: a UUID (its reference asks for version 4's layout). */
const REFERENCE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Calls with the product's bearer token; a 401 drops the token and the call
 * is made once more with a new one (MoMo may end a token before its
 * expires_in). A 401 refuses the request before MoMo looks at it, so the
 * second send cannot pay twice.
 */
async function withToken(
  context: OperationContext,
  call: Omit<MomoCall, 'headers'> & { headers: Record<string, string> },
  signal: AbortSignal,
): Promise<MomoAnswer> {
  const send = async (): Promise<{ answer: MomoAnswer; token: string }> => {
    const token = await context.tokens.token(signal);
    const headers = { ...call.headers, authorization: `Bearer ${token}`, 'ocp-apim-subscription-key': context.settings.subscriptionKey.reveal() };
    return { answer: await callMomo(context.settings.url, { ...call, headers }, signal, context.timeoutMs), token };
  };
  const first = await send();
  if (first.answer.status !== 401) return first.answer;
  context.tokens.invalidate(first.token);
  context.log.info({ call: call.name }, 'MTN MoMo refused the access token; requesting a new one');
  return (await send()).answer;
}

function errorCodeText(answer: MomoAnswer): string {
  const error = errorOf(answer.body);
  return error === null ? `HTTP ${answer.status}` : `HTTP ${answer.status} ${error.code}`;
}

/** The transfer request's body (MoMo's Transfer): the notes are Payrail's own short text. */
export function transferBody(submission: PayoutSubmission): WireTransferRequest {
  const corridor = submission.corridor;
  const note = `Payrail transfer ${submission.transferId}`.slice(0, NOTE_CHARS_MAX);
  return {
    amount: amountText(submission.receivedMinor, corridor.currencyMinorUnits, amountDecimalsOf(corridor)),
    currency: currencyOf(corridor),
    // Payrail's provider key: it comes back in the transfer's status and in callbacks, and names the transfer in MoMo's reports.
    externalId: submission.idempotencyKey,
    payee: { partyIdType: 'MSISDN', partyId: msisdnOf(submission.receiverPhone) },
    payerMessage: note,
    payeeNote: note,
  };
}

export async function submit(context: OperationContext, submission: PayoutSubmission): Promise<SubmitOutcome> {
  const referenceId = submission.idempotencyUuid;
  if (!REFERENCE_ID.test(referenceId)) throw new Error('mtn-momo: idempotencyUuid must be a UUID');
  // Built before anything is sent: a bad amount or number throws with nothing sent.
  const body = JSON.stringify(transferBody(submission));
  const headers: Record<string, string> = {
    'x-reference-id': referenceId,
    'x-target-environment': targetEnvironmentOf(submission.corridor),
    ...(context.callbackUrl === null ? {} : { 'x-callback-url': context.callbackUrl }),
  };
  const answer = await withToken(context, { name: 'transfer', method: 'POST', path: `${PRODUCT_PATH}/v1_0/transfer`, headers, body }, submission.signal);
  const status = answer.status;
  if (status === 202) return { kind: 'accepted', providerRef: referenceId, pollAfterMs: FIRST_POLL_AFTER_MS };
  if (status === 409) {
    // The reference exists: an earlier send of this same transfer was taken (Payrail's references are unique per installation and transfer).
    context.log.info({ attempt: submission.attempt }, 'MTN MoMo already has this transfer (409); following it');
    return { kind: 'accepted', providerRef: referenceId, pollAfterMs: 0 };
  }
  if (status === 400) {
    const error = errorOf(answer.body);
    const code = error?.code ?? `HTTP_${status}`;
    const failure = failureOf(code);
    return {
      kind: 'rejected',
      errorCode: code,
      errorText: error === null ? `MTN Mobile Money refused the transfer request (HTTP ${status})` : failure.errorText,
    };
  }
  if (status === 404) {
    // Undocumented for POST /transfer: a wrong URL path or a gateway that routes nowhere, before any wallet platform saw the transfer.
    context.log.warn({ code: errorOf(answer.body)?.code ?? null }, 'MTN MoMo answered the transfer with 404; check the configured MoMo URL');
    return { kind: 'unavailable', reason: `MTN MoMo does not serve the transfer call here (${errorCodeText(answer)})` };
  }
  if (status === 401 || status === 403 || status === 429) {
    // Refused at MoMo's gateway (credentials, the calling address, a rate limit) before the wallet platform saw it.
    return { kind: 'unavailable', reason: `MTN MoMo refused the request (${errorCodeText(answer)})` };
  }
  if (status >= 500)
    context.log.warn({ status, code: errorOf(answer.body)?.code ?? null }, 'MTN MoMo answered the transfer with a server error; its outcome is unknown');
  throw new MtnMomoUnknownOutcome(`mtn-momo transfer: ${errorCodeText(answer)}`);
}

export async function poll(context: OperationContext, request: PayoutPollRequest): Promise<PollOutcome> {
  const referenceId = request.providerRef;
  if (!REFERENCE_ID.test(referenceId)) throw new MtnMomoAnswerUnusable('mtn-momo transfer status: the provider reference is not a MoMo reference id');
  const headers = { 'x-target-environment': targetEnvironmentOf(request.corridor) };
  const answer = await withToken(
    context,
    { name: 'transfer status', method: 'GET', path: `${PRODUCT_PATH}/v1_0/transfer/${encodeURIComponent(referenceId)}`, headers },
    request.signal,
  );
  if (answer.status === 404) {
    // MoMo accepted this reference (202 or 409) before Payrail ever polls it: a 404 now is MoMo's anomaly (a lagging replica, the wrong target environment), never proof nothing was paid.
    context.log.warn({ providerRef: referenceId }, 'MTN MoMo does not know a transfer it accepted (404); asking again later');
    throw new MtnMomoAnswerUnusable('mtn-momo transfer status: HTTP 404 for a transfer MoMo accepted');
  }
  if (answer.status !== 200) throw new MtnMomoUnknownOutcome(`mtn-momo transfer status: ${errorCodeText(answer)}`);
  const result = transferResultOf(answer.body);
  if (result === null) throw new MtnMomoAnswerUnusable('mtn-momo transfer status: the answer carries no known status');
  switch (result.status) {
    case 'PENDING':
      return { kind: 'pending', retryAfterMs: PENDING_RETRY_AFTER_MS };
    case 'SUCCESSFUL':
      // MoMo's own id of the money movement; a SUCCESSFUL answer without one is named by its reference.
      return { kind: 'succeeded', transactionRef: result.financialTransactionId ?? referenceId };
    case 'FAILED':
      return { kind: 'failed', ...failureOf(result.reason) };
  }
}

export async function lookupReceiver(
  context: OperationContext,
  phoneE164: string,
  signal: AbortSignal,
  corridor: Corridor | undefined,
): Promise<{ registered: boolean }> {
  const target = corridor === undefined ? context.defaultTargetEnvironment : targetEnvironmentOf(corridor);
  if (target === null) throw new Error('mtn-momo: a receiver look-up needs the corridor (its target environment)');
  const answer = await withToken(
    context,
    {
      name: 'account holder',
      method: 'GET',
      path: `${PRODUCT_PATH}/v1_0/accountholder/msisdn/${encodeURIComponent(msisdnOf(phoneE164))}/active`,
      headers: { 'x-target-environment': target },
    },
    signal,
  );
  if (answer.status !== 200) throw new MtnMomoUnknownOutcome(`mtn-momo account holder: ${errorCodeText(answer)}`);
  const active = activeResultOf(answer.body);
  if (active === null) throw new MtnMomoAnswerUnusable('mtn-momo account holder: the answer carries no result');
  return { registered: active };
}

export async function balance(context: OperationContext, corridor: Corridor, signal: AbortSignal): Promise<{ availableBalance: string; currency: string }> {
  const answer = await withToken(
    context,
    { name: 'balance', method: 'GET', path: `${PRODUCT_PATH}/v1_0/account/balance`, headers: { 'x-target-environment': targetEnvironmentOf(corridor) } },
    signal,
  );
  if (answer.status !== 200) throw new MtnMomoUnknownOutcome(`mtn-momo balance: ${errorCodeText(answer)}`);
  const result = balanceOf(answer.body);
  if (result === null) throw new MtnMomoAnswerUnusable('mtn-momo balance: the answer carries no balance');
  return result;
}
