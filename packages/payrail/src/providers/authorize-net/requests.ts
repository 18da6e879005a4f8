// The request bodies, in the element order of AnetApiSchema.xsd: the JSON
// API is a translation of the XML schema and refuses an element out of
// order. transactionRequestType's order, as far as used here: transactionType,
// amount, currencyCode, payment, profile, solution, callId, terminalNumber,
// authCode, refTransId, splitTenderId, order, lineItems, tax, duty, shipping,
// taxExempt, poNumber, customer, billTo, shipTo, customerIP,
// cardholderAuthentication, retail, employeeId, transactionSettings,
// userFields, surcharge, merchantDescriptor, subMerchant, tip,
// processingOptions, subsequentAuthInformation, ... Builders add keys in that
// order and leave absent ones out (JSON objects keep insertion order).
//
// Card data is revealed here and only here, into the body the transport
// sends; nothing built here is logged.
import { formatCents } from '../../domain/money.ts';
import type { AuthorizationRequest, CreditRequest, StoredCredential } from '../card-processor.ts';
import { DUPLICATE_WINDOW_SECONDS, TRANSACTION_PAGE_LIMIT } from './settings.ts';

export type TransactionType = 'authOnlyTransaction' | 'authCaptureTransaction' | 'priorAuthCaptureTransaction' | 'voidTransaction' | 'refundTransaction';

/** Fields of one createTransactionRequest (refId, transactionRequest), for postApi. */
export type RequestFields = Readonly<Record<string, unknown>>;

/** billTo's documented lengths: address 60, zip 20, country 60 characters. */
const ADDRESS_CHARS_MAX = 60;
const ZIP_CHARS_MAX = 20;
const COUNTRY_CHARS_MAX = 60;

/** expirationDate as YYYY-MM, one of the documented forms. */
export function expirationDateOf(month: number, year: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}`;
}

/**
 * The settings every money-moving request carries: the duplicate window
 * (settings.ts says why), and allowPartialAuth, always "true" or "false":
 * left out, the account's own setting would decide whether a charge that
 * allows no partial approval may be approved in part. Null (refunds, which
 * approve no amount in part) sends none.
 */
function transactionSettingsOf(allowPartialAuth: boolean | null): { setting: { settingName: string; settingValue: string }[] } {
  return {
    setting: [
      { settingName: 'duplicateWindow', settingValue: String(DUPLICATE_WINDOW_SECONDS) },
      ...(allowPartialAuth === null ? [] : [{ settingName: 'allowPartialAuth', settingValue: allowPartialAuth ? 'true' : 'false' }]),
    ],
  };
}

/**
 * currencyCode only for another currency than the account's: Payrail charges
 * USD (card-processor.ts), the currency of a US merchant account, and an
 * account that was not set up for multiple currencies refuses the element.
 */
function currencyFields(currency: string): { currencyCode?: string } {
  return currency.toUpperCase() === 'USD' ? {} : { currencyCode: currency.toUpperCase() };
}

/**
 * Card-on-file flags (Authorize.net's processingOptions and
 * subsequentAuthInformation, for the networks' credential-on-file framework):
 * - the first charge of a schedule: isFirstRecurringPayment;
 * - any other first use of a card being kept: isFirstSubsequentAuth;
 * - a cardholder paying with a kept card: isStoredCredentials;
 * - the merchant charging a kept card (a schedule run, an unscheduled charge):
 *   isSubsequentAuth, with the first authorization's network transaction id
 *   when Payrail knows it. `reason` is left out: Authorize.net's reasons
 *   (resubmission, delayedCharge, reauthorization, noShow) name industry
 *   practices Payrail does not do.
 */
export function storedCredentialFields(stored: StoredCredential | undefined): Record<string, unknown> {
  if (stored === undefined) return {};
  if (stored.use === 'initial') {
    return { processingOptions: stored.reason === 'recurring' ? { isFirstRecurringPayment: true } : { isFirstSubsequentAuth: true } };
  }
  if (stored.initiator === 'customer') return { processingOptions: { isStoredCredentials: true } };
  return {
    processingOptions: { isSubsequentAuth: true },
    ...(stored.networkTransactionId === null ? {} : { subsequentAuthInformation: { originalNetworkTransId: stored.networkTransactionId } }),
  };
}

/** billTo with what Payrail has for the address check; empty parts left out. */
function billToOf(billing: AuthorizationRequest['billing']): Record<string, string> | undefined {
  const billTo: Record<string, string> = {};
  if (billing.street !== '') billTo.address = billing.street.slice(0, ADDRESS_CHARS_MAX);
  if (billing.zip !== '') billTo.zip = billing.zip.slice(0, ZIP_CHARS_MAX);
  if (billing.country !== '') billTo.country = billing.country.slice(0, COUNTRY_CHARS_MAX);
  return Object.keys(billTo).length === 0 ? undefined : billTo;
}

/**
 * An authorization (authOnly, or authCapture when the charge is captured at
 * once) or a verification: invoiceNumber and refId are the reference, so a
 * re-sent request is a duplicate of the first (reason 11).
 */
export function authorizationRequest(
  request: Omit<AuthorizationRequest, 'signal' | 'amountCents'>,
  amountCents: number,
  transactionType: 'authOnlyTransaction' | 'authCaptureTransaction',
): RequestFields {
  const cvv = request.card.cvv?.reveal();
  const billTo = billToOf(request.billing);
  return {
    refId: request.reference,
    transactionRequest: {
      transactionType,
      amount: formatCents(amountCents),
      ...currencyFields(request.currency),
      payment: {
        creditCard: {
          cardNumber: request.card.number.reveal(),
          expirationDate: expirationDateOf(request.card.expiryMonth, request.card.expiryYear),
          ...(cvv === undefined || cvv === '' ? {} : { cardCode: cvv }),
        },
      },
      order: { invoiceNumber: request.reference },
      ...(billTo === undefined ? {} : { billTo }),
      transactionSettings: transactionSettingsOf(request.allowPartialApproval === true),
      ...storedCredentialFields(request.storedCredential),
    },
  };
}

/** A capture of an authorization, for its amount or less. */
export function captureRequest(reference: string, processorRef: string, amountCents: number): RequestFields {
  return {
    refId: reference,
    transactionRequest: { transactionType: 'priorAuthCaptureTransaction', amount: formatCents(amountCents), refTransId: processorRef },
  };
}

/** A void of an authorization or of an unsettled capture, refund or credit. */
export function voidRequest(reference: string, processorRef: string): RequestFields {
  return { refId: reference, transactionRequest: { transactionType: 'voidTransaction', refTransId: processorRef } };
}

/**
 * A refund of a settled charge: Authorize.net requires the card's last four
 * digits and accepts "XXXX" for the expiry date of a linked refund.
 */
export function refundRequest(request: {
  reference: string;
  chargeProcessorRef: string;
  amountCents: number;
  currency: string;
  cardLastFour: string;
}): RequestFields {
  return {
    refId: request.reference,
    transactionRequest: {
      transactionType: 'refundTransaction',
      amount: formatCents(request.amountCents),
      ...currencyFields(request.currency),
      payment: { creditCard: { cardNumber: request.cardLastFour, expirationDate: 'XXXX' } },
      refTransId: request.chargeProcessorRef,
      order: { invoiceNumber: request.reference },
      transactionSettings: transactionSettingsOf(null),
    },
  };
}

/**
 * An unlinked credit: a refundTransaction without refTransId, with the whole
 * card. Authorize.net refuses it (reason 54) unless the merchant account has
 * unlinked credits enabled (docs/authorize-net.md says how to ask).
 */
export function creditRequest(request: Omit<CreditRequest, 'signal'>): RequestFields {
  return {
    refId: request.reference,
    transactionRequest: {
      transactionType: 'refundTransaction',
      amount: formatCents(request.amountCents),
      ...currencyFields(request.currency),
      payment: {
        creditCard: { cardNumber: request.card.number.reveal(), expirationDate: expirationDateOf(request.card.expiryMonth, request.card.expiryYear) },
      },
      order: { invoiceNumber: request.reference },
      transactionSettings: transactionSettingsOf(null),
    },
  };
}

/** getTransactionDetailsRequest's fields. */
export function transactionDetailsRequest(transId: string): RequestFields {
  return { transId };
}

/** A UTC time as getSettledBatchList's dates: YYYY-MM-DDTHH:MM:SSZ. */
export function settlementDateOf(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/** getSettledBatchListRequest's fields: one span of at most 31 days. */
export function settledBatchListRequest(fromMs: number, toMs: number): RequestFields {
  return { includeStatistics: false, firstSettlementDate: settlementDateOf(fromMs), lastSettlementDate: settlementDateOf(toMs) };
}

/** getTransactionListRequest's fields: one page (1-based) of a batch, oldest first. */
export function transactionListRequest(batchId: string, page: number): RequestFields {
  return { batchId, sorting: { orderBy: 'submitTimeUTC', orderDescending: false }, paging: { limit: TRANSACTION_PAGE_LIMIT, offset: page } };
}

/**
 * updateSplitTenderGroupRequest's fields: "completed" releases a partial
 * approval's group (Authorize.net holds it until then), returning each
 * transaction to its own state (an authorization, or a capture).
 */
export function splitTenderReleaseRequest(splitTenderId: string): RequestFields {
  return { splitTenderId, splitTenderStatus: 'completed' };
}
