// Authorize.net's JSON API shapes as this connector reads them (the JSON API
// is a translation of AnetApiSchema.xsd). Only the fields used are typed;
// everything is optional because the processor omits what does not apply,
// and a list of one may arrive as the element itself.

export interface WireMessages {
  readonly resultCode?: string;
  readonly message?: WireOneOrMany<{ readonly code?: string; readonly text?: string }>;
}

export type WireOneOrMany<T> = T | readonly T[];

/**
 * A list in an answer: Authorize.net's JSON answers render the schema's
 * ArrayOf... types as a plain array (`"errors": [{...}]`), while requests and
 * some older answers keep the wrapping element (`{"error": [...]}`); both are read.
 */
export type WireList<K extends string, T> = readonly T[] | { readonly [key in K]?: WireOneOrMany<T> };

export interface WireSplitTenderPayment {
  readonly transId?: string;
  readonly requestedAmount?: string | number;
  readonly approvedAmount?: string | number;
}

/** Every API answer: messages, and the request's refId echoed. */
export interface WireEnvelope {
  readonly refId?: string;
  readonly messages?: WireMessages;
}

export interface WireTransactionResponse {
  readonly responseCode?: string;
  readonly authCode?: string;
  readonly avsResultCode?: string;
  readonly cvvResultCode?: string;
  readonly transId?: string;
  readonly refTransID?: string;
  readonly accountNumber?: string;
  readonly splitTenderId?: string;
  readonly prePaidCard?: { readonly requestedAmount?: string | number; readonly approvedAmount?: string | number };
  readonly splitTenderPayments?: WireList<'splitTenderPayment', WireSplitTenderPayment>;
  readonly messages?: WireList<'message', { readonly code?: string; readonly description?: string }>;
  readonly errors?: WireList<'error', { readonly errorCode?: string; readonly errorText?: string }>;
  readonly networkTransId?: string;
}

export interface WireCreateTransactionResponse extends WireEnvelope {
  readonly transactionResponse?: WireTransactionResponse;
}

export interface WireTransactionDetails {
  readonly transId?: string;
  readonly refTransId?: string;
  readonly splitTenderId?: string;
  readonly transactionType?: string;
  readonly transactionStatus?: string;
  readonly responseCode?: string | number;
  readonly responseReasonCode?: string | number;
  readonly authCode?: string;
  readonly AVSResponse?: string;
  readonly cardCodeResponse?: string;
  readonly order?: { readonly invoiceNumber?: string };
  readonly requestedAmount?: string | number;
  readonly authAmount?: string | number;
  readonly settleAmount?: string | number;
  readonly networkTransId?: string;
  /** The settlement batch, once the transaction settled. */
  readonly batch?: WireBatch;
  /** An eCheck's returns: each return is a transaction of its own (status returnedItem), listed here on the original. */
  readonly returnedItems?: WireList<'returnedItem', WireReturnedItem>;
  readonly responseReasonDescription?: string;
}

/** returnedItemType (AnetApiSchema.xsd): id, dateUTC, dateLocal, code, description, all required. */
export interface WireReturnedItem {
  readonly id?: string;
  readonly dateUTC?: string;
  readonly dateLocal?: string;
  readonly code?: string;
  readonly description?: string;
}

export interface WireTransactionDetailsResponse extends WireEnvelope {
  readonly transaction?: WireTransactionDetails;
}

export interface WireBatch {
  readonly batchId?: string;
  readonly settlementTimeUTC?: string;
  readonly settlementState?: string;
  /** creditCard or eCheck: Authorize.net settles each payment method in batches of its own. */
  readonly paymentMethod?: string;
}

export interface WireSettledBatchListResponse extends WireEnvelope {
  readonly batchList?: WireList<'batch', WireBatch>;
}

export interface WireTransactionSummary {
  readonly transId?: string;
  readonly transactionStatus?: string;
  readonly invoiceNumber?: string;
  readonly settleAmount?: string | number;
}

export interface WireTransactionListResponse extends WireEnvelope {
  readonly transactions?: WireList<'transaction', WireTransactionSummary>;
  readonly totalNumInResultSet?: number | string;
}

/** The elements of a one-or-many field as a list ([] when absent). */
export function listOf<T>(value: WireOneOrMany<T> | undefined | null): readonly T[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? (value as readonly T[]) : [value as T];
}

/** The items of a WireList, whichever way it was rendered ([] when absent). */
export function itemsOf<K extends string, T>(list: WireList<K, T> | undefined | null, element: K): readonly T[] {
  if (list === undefined || list === null) return [];
  if (Array.isArray(list)) return list as readonly T[];
  return listOf<T>((list as Readonly<Record<string, WireOneOrMany<T> | undefined>>)[element]);
}

/** The first message code of an answer ("I00001", "E00007"), or "" when it carries none. */
export function firstMessageCode(envelope: WireEnvelope): string {
  return listOf(envelope.messages?.message)[0]?.code ?? '';
}
