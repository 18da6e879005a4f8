// The PayoutNetwork calls over pawaPay's v2 API: initiate payout
// (POST /v2/payouts), check payout status (GET /v2/payouts/{payoutId}) and
// predict provider (POST /v2/predict-provider) for receiver look-ups.
import type { Logger } from 'pino';
import type { Corridor } from '../../domain/corridors.ts';
import type { PayoutPollRequest, PayoutSubmission, PollOutcome, SubmitOutcome } from '../payout-network.ts';
import { amountText, decimalsFor } from './amounts.ts';
import { callApi, PawaPayAnswerUnusable, PawaPayUnknownOutcome, recordOf, textOf, withTimeout } from './client.ts';
import { IN_FLIGHT_STATUSES, rejectionClassOf } from './codes.ts';
import { AMOUNT_DECIMALS_MAX, alpha2Of, amountDecimalsOf, providerOf } from './corridor.ts';
import { ENQUEUED_RETRY_AFTER_MS, FIRST_POLL_AFTER_MS, LOOKUP_TIMEOUT_MS, PENDING_RETRY_AFTER_MS, type PawaPaySettings } from './settings.ts';

export interface OperationContext {
  readonly settings: PawaPaySettings;
  readonly log: Logger;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** pawaPay's customerMessage: 4 to 22 characters, shown on the receiver's statement. */
const CUSTOMER_MESSAGE_CHARS_MAX = 22;

/** E.164 without its plus: the MSISDN pawaPay takes. */
export function msisdnOf(phoneE164: string): string {
  const digits = phoneE164.replace(/^\+/, '');
  if (!/^[1-9][0-9]{6,14}$/.test(digits)) throw new Error('pawapay: the phone number is not in E.164 form');
  return digits;
}

/** The statement text: the merchant's transfer id, which the merchant can match to its own records. */
export function customerMessageOf(transferId: string): string {
  const id = transferId.replace(/[^A-Za-z0-9]/g, '');
  const text = `Transfer ${id}`;
  return text.length <= CUSTOMER_MESSAGE_CHARS_MAX ? text : id.slice(-CUSTOMER_MESSAGE_CHARS_MAX).padStart(4, '0');
}

/** The initiate-payout body for a submission (docs: v2 initiate payout); null when pawaPay could not take its amount. */
export function payoutRequestOf(submission: PayoutSubmission): Record<string, unknown> | null {
  const corridor = submission.corridor;
  const decimals = decimalsFor(submission.receivedMinor, corridor.currencyMinorUnits, amountDecimalsOf(corridor), AMOUNT_DECIMALS_MAX);
  if (decimals === null) return null;
  return {
    payoutId: submission.idempotencyUuid,
    amount: amountText(submission.receivedMinor, corridor.currencyMinorUnits, decimals),
    currency: corridor.currency,
    recipient: { type: 'MMO', accountDetails: { phoneNumber: msisdnOf(submission.receiverPhone), provider: providerOf(corridor) } },
    customerMessage: customerMessageOf(submission.transferId),
    // Comes back in the status and callbacks: who the payout is for in the merchant's terms, no personal data.
    metadata: [{ transferId: submission.transferId }],
  };
}

export async function submit(context: OperationContext, submission: PayoutSubmission): Promise<SubmitOutcome> {
  const payoutId = submission.idempotencyUuid;
  if (!UUID.test(payoutId)) throw new Error('pawapay: the payoutId must be a UUID');
  const body = payoutRequestOf(submission);
  // Nothing is sent: a definitive refusal, as pawaPay's own INVALID_AMOUNT would be.
  if (body === null) return { kind: 'rejected', errorCode: 'INVALID_AMOUNT', errorText: 'the amount has more decimals than pawaPay takes (at most 2)' };
  const signal = withTimeout(submission.signal, context.settings.callTimeoutMs);
  const answer = await callApi(context.settings, 'POST', 'v2/payouts', body, signal);
  // A rate limit refuses the request before pawaPay looks at it: nothing taken on this attempt.
  if (answer.status === 429) return { kind: 'unavailable', reason: 'pawaPay rate-limited the payout request (HTTP 429)' };
  const json = recordOf(answer.json);
  const status = textOf(json?.status, 40);
  if (status === 'ACCEPTED' || status === 'DUPLICATE_IGNORED') {
    if (answer.status !== 200) throw new PawaPayAnswerUnusable(`pawapay POST v2/payouts: ${status} with HTTP ${answer.status}`);
    const echoed = textOf(json?.payoutId, 64);
    if (echoed !== null && echoed.toLowerCase() !== payoutId.toLowerCase()) {
      throw new PawaPayAnswerUnusable('pawapay POST v2/payouts: the answer names another payout');
    }
    // DUPLICATE_IGNORED: pawaPay has this payoutId already (an earlier attempt
    // whose answer was lost); that payout stands and is followed, never paid twice.
    if (status === 'DUPLICATE_IGNORED') context.log.info({ payoutId }, 'pawapay: payout already taken (DUPLICATE_IGNORED); following it');
    return { kind: 'accepted', providerRef: payoutId, pollAfterMs: FIRST_POLL_AFTER_MS };
  }
  const reason = recordOf(json?.failureReason);
  const code = textOf(reason?.failureCode, 80);
  // A refusal must say why; 4xx answers without a readable code (a proxy's
  // page, a body cut short) say nothing definite about the payout.
  if (code === null || (status !== null && status !== 'REJECTED')) {
    throw new PawaPayAnswerUnusable(`pawapay POST v2/payouts: HTTP ${answer.status} status ${status ?? '(none)'} without a failure code Payrail can read`);
  }
  const message = textOf(reason?.failureMessage, 500) ?? code;
  switch (rejectionClassOf(code)) {
    case 'unknown':
      throw new PawaPayUnknownOutcome(`pawapay POST v2/payouts: ${code} (pawaPay could not say whether it took the payout)`);
    case 'try_later':
      return { kind: 'unavailable', reason: `pawaPay ${code}: ${message}` };
    case 'final':
      return { kind: 'rejected', errorCode: code, errorText: message };
  }
}

export async function poll(context: OperationContext, request: PayoutPollRequest): Promise<PollOutcome> {
  const payoutId = request.providerRef;
  if (!UUID.test(payoutId)) throw new Error('pawapay: not a pawaPay payoutId');
  const signal = withTimeout(request.signal, context.settings.callTimeoutMs);
  const answer = await callApi(context.settings, 'GET', `v2/payouts/${payoutId}`, undefined, signal);
  const json = recordOf(answer.json);
  // Refused credentials and a rate limit are pawaPay not serving Payrail (a breaker counts them); any other odd answer is not.
  if (answer.status === 401 || answer.status === 403 || answer.status === 429)
    throw new PawaPayUnknownOutcome(`pawapay GET v2/payouts/{id}: HTTP ${answer.status}`);
  if (answer.status !== 200 || json === null) throw new PawaPayAnswerUnusable(`pawapay GET v2/payouts/{id}: HTTP ${answer.status}`);
  const found = textOf(json.status, 20);
  if (found === 'NOT_FOUND') {
    // pawaPay answered ACCEPTED or DUPLICATE_IGNORED for it, so it has it: a
    // payout it cannot find now is an anomaly to look into, never a failure
    // (failing it would give the money back while the receiver may be paid).
    context.log.warn({ payoutId }, 'pawapay: an accepted payout is NOT_FOUND at pawaPay');
    throw new PawaPayAnswerUnusable('pawapay GET v2/payouts/{id}: NOT_FOUND for a payout pawaPay accepted');
  }
  const data = recordOf(json.data);
  if (found !== 'FOUND' || data === null) throw new PawaPayAnswerUnusable(`pawapay GET v2/payouts/{id}: status ${found ?? '(none)'}`);
  return outcomeOf(data, payoutId);
}

/** A payout's state (status check data, or a callback body) in Payrail's terms. */
export function outcomeOf(data: Record<string, unknown>, payoutId: string): PollOutcome {
  const status = textOf(data.status, 40);
  const echoed = textOf(data.payoutId, 64);
  if (echoed !== null && echoed.toLowerCase() !== payoutId.toLowerCase()) throw new PawaPayAnswerUnusable('pawapay: the answer names another payout');
  if (status === 'COMPLETED') {
    // The provider's own id when pawaPay has it (not every provider gives one); the payoutId else.
    return { kind: 'succeeded', transactionRef: textOf(data.providerTransactionId, 200) ?? payoutId };
  }
  if (status === 'FAILED') {
    const reason = recordOf(data.failureReason);
    const code = textOf(reason?.failureCode, 80) ?? 'FAILED';
    return { kind: 'failed', errorCode: code, errorText: textOf(reason?.failureMessage, 500) ?? `pawaPay reports the payout failed (${code})` };
  }
  if (status === 'ENQUEUED') return { kind: 'pending', retryAfterMs: ENQUEUED_RETRY_AFTER_MS };
  if (status !== null && IN_FLIGHT_STATUSES.has(status)) return { kind: 'pending', retryAfterMs: PENDING_RETRY_AFTER_MS };
  throw new PawaPayAnswerUnusable(`pawapay: a payout status Payrail does not know (${status === null ? '(none)' : status.slice(0, 40)})`);
}

/**
 * Whether the number is a wallet of the corridor's provider, as far as
 * pawaPay can tell without paying: predict-provider validates the number for
 * its country and names the provider that issues it. pawaPay does not say
 * whether a wallet is open, so a valid number of the right provider counts as
 * registered; a payout to a number with no wallet fails RECIPIENT_NOT_FOUND.
 * A number ported to another provider reads as not registered (pawaPay
 * mispredicts about 0.1% of numbers, more in Benin).
 */
export async function lookupReceiver(
  context: OperationContext,
  phoneE164: string,
  signal: AbortSignal | undefined,
  corridor: Corridor | undefined,
): Promise<{ readonly registered: boolean }> {
  let msisdn: string;
  try {
    msisdn = msisdnOf(phoneE164);
  } catch {
    return { registered: false };
  }
  const answer = await callApi(context.settings, 'POST', 'v2/predict-provider', { phoneNumber: msisdn }, withTimeout(signal, LOOKUP_TIMEOUT_MS));
  const json = recordOf(answer.json);
  const failure = recordOf(json?.failureReason);
  if (failure !== null) {
    const code = textOf(failure.failureCode, 80);
    // The number is not one pawaPay can pay: no wallet anywhere.
    if (code === 'INVALID_PHONE_NUMBER' || code === 'INVALID_PARAMETER') return { registered: false };
    throw new PawaPayAnswerUnusable(`pawapay POST v2/predict-provider: ${code ?? 'a refusal without a code'}`);
  }
  const provider = textOf(json?.provider, 80);
  const country = textOf(json?.country, 3);
  if (answer.status !== 200 || provider === null || country === null)
    throw new PawaPayAnswerUnusable(`pawapay POST v2/predict-provider: HTTP ${answer.status}`);
  if (corridor === undefined) return { registered: true };
  const corridorProvider = corridor.payoutSettings.provider;
  const sameCountry = alpha2Of(country) === null || alpha2Of(country) === corridor.country;
  return { registered: sameCountry && provider === corridorProvider };
}
