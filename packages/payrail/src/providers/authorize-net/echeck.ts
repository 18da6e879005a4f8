// The eCheck side of the Authorize.net connector: an AchNetwork
// (ach-network.ts) on the same transport, settings, duplicate window and
// error rules as the cards (client.ts, api.ts). PAYRAIL_ACH_NETWORK=authorize-net.
// - submit: a debit is an authCaptureTransaction, a credit a
//   refundTransaction (linked to the debit it refunds, else unlinked), both
//   with payment.bankAccount; a re-send within the duplicate window is
//   answered as a duplicate naming the original, whose details are reported.
// - voidEntry: voidTransaction; whatever it answers but an approval, the
//   transaction's details decide (voided, or ended by the gateway without
//   moving money, as status reads it: voided; settled or returned: too late).
// - status: getTransactionDetails (echeck-answers.ts achReportOf).
// A thrown error is an unknown outcome, as on the card side: transport
// errors, 5xx, timeouts, refused credentials, answers Payrail cannot read.
// The account number is revealed only into the request body; errors and
// declines carry Authorize.net's words with the number masked should it
// ever appear in them.
import type { Logger } from 'pino';
import type { AchEntryQuery, AchEntryReport, AchNetwork, AchSubmission, AchSubmitResult, AchVoidResult } from '../ach-network.ts';
import { createTransaction, transactionDetails } from './api.ts';
import { AuthorizeNetAnswerUnusable, AuthorizeNetUnknownOutcome } from './client.ts';
import { achReportOf, echeckAnswerOf, submitResultOfDetails, TOO_LATE_TO_VOID_STATUSES } from './echeck-answers.ts';
import { echeckRequest } from './echeck-requests.ts';
import { voidRequest } from './requests.ts';
import { type AuthorizeNetSettings, CONNECTOR_NAME, DUPLICATE_WINDOW_SECONDS, ECHECK_RETURN_WATCH_MS } from './settings.ts';
import { ALREADY_VOIDED_REASON } from './codes.ts';
import { reasonOf } from './responses.ts';

/** eCheck.Net moves US dollars between US bank accounts. */
const ECHECK_CURRENCY = 'USD';

/** Authorize.net's texts name fields, not values; should a text ever carry the account number, it leaves masked. */
function masked(text: string | null, accountNumber: string): string | null {
  if (text === null || accountNumber.length < 4) return text;
  return text.split(accountNumber).join(`XXXX${accountNumber.slice(-4)}`);
}

async function submit(settings: AuthorizeNetSettings, log: Logger, submission: AchSubmission): Promise<AchSubmitResult> {
  if (submission.currency.toUpperCase() !== ECHECK_CURRENCY) {
    return { outcome: 'failed', networkRef: '', declineMessage: `eCheck.Net moves ${ECHECK_CURRENCY} only` };
  }
  const answer = await createTransaction(settings, echeckRequest(submission), submission.signal);
  const accountNumber = submission.account.accountNumber.reveal();
  if (answer.kind === 'refused') {
    log.warn({ reference: submission.reference, code: answer.code }, 'authorize-net: eCheck request refused as written');
    return { outcome: 'failed', networkRef: '', declineMessage: masked(`${answer.code}: ${answer.text}`, accountNumber) };
  }
  const read = echeckAnswerOf(answer.response);
  if (read.kind === 'credentials_refused') throw new AuthorizeNetUnknownOutcome('authorize-net: reason 13, the credentials were refused');
  if (read.kind === 'outcome') return { ...read.result, declineMessage: masked(read.result.declineMessage, accountNumber) };
  if (read.transId === '') throw new AuthorizeNetAnswerUnusable('authorize-net: a duplicate answer without the original transaction');
  const found = submitResultOfDetails(await transactionDetails(settings, read.transId, submission.signal), submission.reference);
  return { ...found, declineMessage: masked(found.declineMessage, accountNumber) };
}

async function voidEntry(settings: AuthorizeNetSettings, query: AchEntryQuery): Promise<AchVoidResult> {
  const answer = await createTransaction(settings, voidRequest(query.reference, query.networkRef), query.signal);
  if (answer.kind === 'transaction') {
    const reason = reasonOf(answer.response);
    if (reason === '13') throw new AuthorizeNetUnknownOutcome('authorize-net: reason 13, the credentials were refused');
    if (answer.response.responseCode === '1' || reason === ALREADY_VOIDED_REASON) return { outcome: 'voided' };
  }
  // Refused (settled already, "cannot be found" after settlement, a duplicate of the first void): the transaction says which.
  const details = await transactionDetails(settings, query.networkRef, query.signal);
  const status = details.transactionStatus ?? '';
  if (TOO_LATE_TO_VOID_STATUSES.has(status)) return { outcome: 'too_late' };
  // Voided, or ended by the gateway without moving money (declined, failed review, an error): as status reports it, voided.
  const report = achReportOf(details);
  if (report.state === 'returned') return { outcome: 'too_late' };
  if (report.state === 'voided') return { outcome: 'voided' };
  throw new AuthorizeNetAnswerUnusable(`authorize-net: the eCheck void was refused while its status is ${JSON.stringify(status).slice(0, 60)}`);
}

async function status(settings: AuthorizeNetSettings, query: AchEntryQuery): Promise<AchEntryReport> {
  const details = await transactionDetails(settings, query.networkRef, query.signal);
  const invoiceNumber = details.order?.invoiceNumber;
  if (invoiceNumber !== undefined && invoiceNumber !== query.reference)
    throw new AuthorizeNetAnswerUnusable('authorize-net: the transaction belongs to another invoice number, not this entry');
  return achReportOf(details);
}

/**
 * Logs what an operator needs to follow an entry: a refusal with the
 * gateway's words, an unknown outcome with its cause (both free of the
 * account number: errors never carry it), and passes the result on.
 */
async function logged<T>(log: Logger, call: string, reference: string, run: () => Promise<T>): Promise<T> {
  try {
    const result = await run();
    const refused = result as Partial<AchSubmitResult>;
    if (refused.outcome === 'declined' || refused.outcome === 'failed')
      log.info({ reference, outcome: refused.outcome, reason: refused.declineMessage }, `authorize-net: eCheck ${call} refused`);
    return result;
  } catch (error) {
    log.warn({ reference, err: error instanceof Error ? error.message : 'error' }, `authorize-net: eCheck ${call} outcome unknown`);
    throw error;
  }
}

export function createAuthorizeNetEcheck(settings: AuthorizeNetSettings, context: { readonly log: Logger }): AchNetwork {
  const timeoutMs = settings.callTimeoutMs;
  if (timeoutMs !== undefined && !(Number.isSafeInteger(timeoutMs) && timeoutMs > 0))
    throw new Error('authorize-net: callTimeoutMs must be a positive integer');
  return {
    name: CONNECTOR_NAME,
    ...(timeoutMs === undefined ? {} : { callTimeoutMs: timeoutMs }),
    returnWatchMs: ECHECK_RETURN_WATCH_MS,
    // A re-send is recognised as the first submission only within the duplicate window it carries.
    resendWindowMs: DUPLICATE_WINDOW_SECONDS * 1000,
    submit: (submission) => logged(context.log, 'submit', submission.reference, () => submit(settings, context.log, submission)),
    voidEntry: (query) => logged(context.log, 'void', query.reference, () => voidEntry(settings, query)),
    status: (query) => logged(context.log, 'status', query.reference, () => status(settings, query)),
  };
}
