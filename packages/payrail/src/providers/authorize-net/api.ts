// The three API calls the connector makes, each answered in a form the
// operations can act on: a createTransaction answer (a transaction, or a
// refusal of the request as written), a transaction's details, and the
// reporting calls of settlements.ts.
import { AuthorizeNetAnswerUnusable, assertDefinite, messageText, postApi } from './client.ts';
import type { RequestFields } from './requests.ts';
import { splitTenderReleaseRequest, transactionDetailsRequest } from './requests.ts';
import type { AuthorizeNetSettings } from './settings.ts';
import {
  firstMessageCode,
  type WireCreateTransactionResponse,
  type WireEnvelope,
  type WireTransactionDetails,
  type WireTransactionDetailsResponse,
  type WireTransactionResponse,
} from './wire.ts';

export type CreateAnswer =
  /** The gateway made (or found) a transaction and answered its responseCode. */
  | { readonly kind: 'transaction'; readonly response: WireTransactionResponse }
  /** The request was refused as written (a field missing or invalid) before any transaction: nothing moved. */
  | { readonly kind: 'refused'; readonly code: string; readonly text: string };

/** createTransactionRequest; throws when the outcome is unknown (client.ts). */
export async function createTransaction(settings: AuthorizeNetSettings, fields: RequestFields, signal: AbortSignal): Promise<CreateAnswer> {
  const root = 'createTransactionRequest';
  const answer = await postApi<WireCreateTransactionResponse>(settings, root, fields, signal);
  const response = answer.transactionResponse;
  if (response?.responseCode !== undefined && response.responseCode !== '') return { kind: 'transaction', response };
  assertDefinite(answer, root);
  if (answer.messages?.resultCode === 'Ok') throw new AuthorizeNetAnswerUnusable(`authorize-net ${root}: an answer Ok without a transaction`);
  return { kind: 'refused', code: firstMessageCode(answer), text: messageText(answer) };
}

/** getTransactionDetailsRequest; throws (outcome unknown) for any answer without the transaction. */
export async function transactionDetails(settings: AuthorizeNetSettings, transId: string, signal: AbortSignal): Promise<WireTransactionDetails> {
  const root = 'getTransactionDetailsRequest';
  const answer = await postApi<WireTransactionDetailsResponse>(settings, root, transactionDetailsRequest(transId), signal);
  if (answer.messages?.resultCode === 'Ok' && answer.transaction !== undefined) return answer.transaction;
  assertDefinite(answer, root);
  throw new AuthorizeNetAnswerUnusable(`authorize-net ${root}: ${firstMessageCode(answer)} ${messageText(answer)}`);
}

/** updateSplitTenderGroupRequest completing a group; answers whether Authorize.net took it, throws when it did not answer. */
export async function releaseSplitTenderGroup(settings: AuthorizeNetSettings, splitTenderId: string, signal: AbortSignal): Promise<boolean> {
  const answer = await postApi<WireEnvelope>(settings, 'updateSplitTenderGroupRequest', splitTenderReleaseRequest(splitTenderId), signal);
  return answer.messages?.resultCode === 'Ok';
}
