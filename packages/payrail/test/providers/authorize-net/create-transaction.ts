// createTransactionRequest as the API reference documents it
// (developer.authorize.net/api/reference/index.html, "Payment Transactions":
// Authorize a Credit Card, Charge a Credit Card, Capture a Previously
// Authorized Amount, Refund a Transaction, Void a Transaction; request shapes
// as in AuthorizeNet/sample-code-node PaymentTransactions/*.js).
import { bankAccountOf, echeckCredit, echeckDebit } from './echeck.ts';
import { decimal, type Json, type JsonObject, messages, text, bool, cents, child, ApiRefusal } from './wire.ts';
import { duplicateKeyOf, type Ledger, newAuthCode, newNetworkTransId, type StandInTransaction, type StoredCredentialFields } from './ledger.ts';
import {
  accountTypeOf,
  AVS_BY_ZIP,
  CVV_BY_CARD_CODE,
  DECLINE_ZIP,
  HELD_ZIP,
  luhnValid,
  PARTIAL_APPROVED_CENTS,
  PARTIAL_REASON,
  PARTIAL_ZIP,
  parseExpiry,
  REASONS,
  type ReasonNumber,
  TEST_CARDS,
} from './test-data.ts';

/** A change worth a webhook: the event type and the transaction it is about. */
export interface LedgerEvent {
  readonly eventType: string;
  readonly transaction: StandInTransaction;
}

export interface CreateOutcome {
  readonly answer: JsonObject;
  readonly events: readonly LedgerEvent[];
}

/** API reference, transactionSettings: duplicateWindow in seconds, 0..28800; the gateway's default is 120 s. */
const DUPLICATE_WINDOW_DEFAULT_S = 120;
const DUPLICATE_WINDOW_MAX_S = 28_800;
/** API reference, subsequentAuthInformation.reason (merchantInitTransReasonEnum). */
const MIT_REASONS = new Set(['resubmission', 'delayedCharge', 'reauthorization', 'noShow']);
/** AFDS "authorize and hold" answers FDSAuthorizedPendingReview; the stand-in holds before authorizing (reason 252, FDSPendingReview). */
const HELD_REASON = 252;

export interface Common {
  readonly loginId: string;
  readonly nowMs: number;
  readonly refId: string | null;
}

export function createTransaction(ledger: Ledger, request: JsonObject, common: Common): CreateOutcome {
  const tx = child(request, 'transactionRequest');
  if (tx === null)
    throw new ApiRefusal('E00003', "The element 'createTransactionRequest' has incomplete content. List of possible elements expected: 'transactionRequest'.");
  const type = text(tx, 'transactionType', 50);
  switch (type) {
    case 'authOnlyTransaction':
    case 'authCaptureTransaction':
      if (bankAccountOf(tx) !== null) return echeckDebit(ledger, tx, type, common);
      return authorize(ledger, tx, type, common);
    case 'priorAuthCaptureTransaction':
      return capture(ledger, tx, common);
    case 'voidTransaction':
      return voidTransaction(ledger, tx, common);
    case 'refundTransaction':
      if (bankAccountOf(tx) !== null) return echeckCredit(ledger, tx, common);
      return refund(ledger, tx, common);
    default:
      throw new ApiRefusal(
        'E00003',
        `The 'transactionType' element is invalid - The value '${type ?? ''}' is invalid according to its datatype 'transactionTypeEnum'.`,
      );
  }
}

/** The answer of a transaction the rules refused or decided: transactionResponse plus the envelope. */
export function answerOf(common: Common, fields: TransactionFields, reason: ReasonNumber): CreateOutcome['answer'] {
  const { responseCode, text: reasonText } = REASONS[reason];
  const succeeded = responseCode === '1' || responseCode === '4';
  const transactionResponse: JsonObject = {
    responseCode,
    authCode: fields.authCode ?? '',
    avsResultCode: fields.avsResultCode ?? 'P',
    cvvResultCode: fields.cvvResultCode ?? '',
    cavvResultCode: '',
    transId: fields.transId ?? '0',
    refTransID: fields.refTransId ?? '',
    testRequest: '0',
    accountNumber: fields.lastFour ? `XXXX${fields.lastFour}` : '',
    accountType: fields.accountType ?? '',
    ...(succeeded ? { messages: [{ code: String(reason), description: reasonText }] } : { errors: [{ errorCode: String(reason), errorText: reasonText }] }),
    ...(fields.networkTransId ? { networkTransId: fields.networkTransId } : {}),
  };
  return {
    transactionResponse,
    ...(common.refId === null ? {} : { refId: common.refId }),
    messages: succeeded ? messages('I00001') : messages('E00027'),
  };
}

export interface TransactionFields {
  readonly transId?: string;
  readonly refTransId?: string;
  readonly authCode?: string;
  readonly avsResultCode?: string;
  readonly cvvResultCode?: string;
  readonly lastFour?: string;
  readonly accountType?: string;
  readonly networkTransId?: string | null;
}

export function fieldsOf(transaction: StandInTransaction): TransactionFields {
  return {
    transId: transaction.transId,
    ...(transaction.refTransId === null ? {} : { refTransId: transaction.refTransId }),
    authCode: transaction.authCode,
    avsResultCode: transaction.avsResultCode,
    cvvResultCode: transaction.cvvResultCode,
    lastFour: transaction.cardLastFour,
    accountType: transaction.accountType,
    networkTransId: transaction.networkTransId,
  };
}

export function refused(common: Common, reason: ReasonNumber, fields: TransactionFields = {}): CreateOutcome {
  return { answer: answerOf(common, fields, reason), events: [] };
}

/** A transactionSettings setting's value (API reference, settingNameEnum); null when not sent. */
function settingOf(tx: JsonObject, wanted: string): string | null {
  const settings = child(tx, 'transactionSettings');
  const list: Json = settings?.setting ?? [];
  for (const setting of Array.isArray(list) ? list : [list]) {
    if (typeof setting !== 'object' || setting === null || Array.isArray(setting)) continue;
    if (text(setting, 'settingName', 50) === wanted) return text(setting, 'settingValue', 50) ?? '';
  }
  return null;
}

/** The duplicate window this request asks for (transactionSettings duplicateWindow), and whether it asked at all. */
export function duplicateWindowOf(tx: JsonObject): { readonly seconds: number; readonly sent: boolean } {
  const value = settingOf(tx, 'duplicateWindow');
  if (value === null) return { seconds: DUPLICATE_WINDOW_DEFAULT_S, sent: false };
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > DUPLICATE_WINDOW_MAX_S) {
    throw new ApiRefusal('E00013', 'The duplicateWindow setting value is invalid.');
  }
  return { seconds, sent: true };
}

/**
 * The duplicate answer (SIM/AIM guide "Response for Duplicate Transactions",
 * same rule in the JSON API): response 3, reason 11; when the request sent
 * duplicateWindow, the original's transId, AVS and CVV results, and its
 * authCode when it was approved. Without duplicateWindow: no details.
 */
export function duplicateAnswer(common: Common, original: StandInTransaction, windowSent: boolean): CreateOutcome {
  if (!windowSent) return refused(common, 11);
  return refused(common, 11, {
    transId: original.transId,
    authCode: original.responseCode === '1' ? original.authCode : '',
    avsResultCode: original.avsResultCode,
    cvvResultCode: original.cvvResultCode,
    lastFour: original.cardLastFour,
    accountType: original.accountType,
  });
}

function storedCredentialOf(tx: JsonObject): StoredCredentialFields | null {
  const options = child(tx, 'processingOptions');
  const subsequent = child(tx, 'subsequentAuthInformation');
  if (options === null && subsequent === null) return null;
  const reason = text(subsequent, 'reason', 50);
  if (reason !== null && !MIT_REASONS.has(reason)) {
    throw new ApiRefusal(
      'E00003',
      `The 'reason' element is invalid - The value '${reason}' is invalid according to its datatype 'merchantInitTransReasonEnum'.`,
    );
  }
  const originalAuthAmount = cents(text(subsequent, 'originalAuthAmount'));
  if (originalAuthAmount === 'invalid') throw new ApiRefusal('E00003', "The 'originalAuthAmount' element is invalid.");
  return {
    isFirstRecurringPayment: bool(options, 'isFirstRecurringPayment'),
    isFirstSubsequentAuth: bool(options, 'isFirstSubsequentAuth'),
    isSubsequentAuth: bool(options, 'isSubsequentAuth'),
    isStoredCredentials: bool(options, 'isStoredCredentials'),
    originalNetworkTransId: text(subsequent, 'originalNetworkTransId', 255),
    reason,
  };
}

function authorize(ledger: Ledger, tx: JsonObject, type: 'authOnlyTransaction' | 'authCaptureTransaction', common: Common): CreateOutcome {
  const amountCents = cents(text(tx, 'amount', 20));
  // A zero amount is an account verification, allowed on authOnly only (API reference, "Authorize a Credit Card" / $0 auth).
  if (amountCents === null || amountCents === 'invalid' || (amountCents === 0 && type !== 'authOnlyTransaction')) return refused(common, 5);
  const card = child(child(tx, 'payment') ?? {}, 'creditCard');
  const order = child(tx, 'order');
  const invoiceNumber = text(order, 'invoiceNumber', 20);
  text(order, 'description', 255);
  const customer = child(tx, 'customer');
  const billTo = child(tx, 'billTo');
  const window = duplicateWindowOf(tx);
  const storedCredential = storedCredentialOf(tx);
  const cardNumber = text(card, 'cardNumber', 16);
  if (cardNumber === null) return refused(common, 33);
  if (!luhnValid(cardNumber)) return refused(common, 6);
  const expirationDate = text(card, 'expirationDate', 7) ?? '';
  const expiry = parseExpiry(expirationDate);
  if (expiry === null) return refused(common, 7);
  const now = new Date(common.nowMs);
  if (expiry.year * 12 + expiry.month < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1) return refused(common, 8);
  const cardCode = text(card, 'cardCode', 4);
  if (cardCode !== null && !/^\d{3,4}$/.test(cardCode)) return refused(common, 78);

  const zip = text(billTo, 'zip', 20);
  const duplicateKey = duplicateKeyOf([
    common.loginId,
    type,
    cardNumber,
    expirationDate,
    String(amountCents),
    invoiceNumber,
    text(tx, 'poNumber', 25),
    text(customer, 'id', 20),
    ...['firstName', 'lastName', 'company', 'address', 'city', 'state', 'zip', 'country'].map((name) => text(billTo, name, 60)),
  ]);
  const original = ledger.duplicateOf(duplicateKey, common.nowMs, window.seconds);
  if (original !== undefined) return duplicateAnswer(common, original, window.sent);

  const partialAllowed = settingOf(tx, 'allowPartialAuth') === 'true';
  const partialCents = zip === PARTIAL_ZIP && amountCents > PARTIAL_APPROVED_CENTS ? PARTIAL_APPROVED_CENTS : null;
  // Without allowPartialAuth the issuer's partial answer cannot be taken: a decline.
  const reason = partialCents !== null ? (partialAllowed ? PARTIAL_REASON : 2) : reasonFor(cardNumber, amountCents, zip);
  const { responseCode } = REASONS[reason];
  if (responseCode === '3') return refused(common, reason);
  const partial = reason === PARTIAL_REASON;
  const approved = responseCode === '1' || partial;
  const transaction: StandInTransaction = {
    transId: ledger.newTransId(),
    refTransId: null,
    type,
    status: partial
      ? 'authorizedPendingRelease'
      : approved
        ? type === 'authOnlyTransaction'
          ? 'authorizedPendingCapture'
          : 'capturedPendingSettlement'
        : responseCode === '4'
          ? 'FDSPendingReview'
          : 'declined',
    responseCode,
    reasonCode: reason,
    requestedAmountCents: amountCents,
    authAmountCents: partialCents !== null && partial ? partialCents : amountCents,
    settleAmountCents: approved && !partial && type === 'authCaptureTransaction' ? amountCents : 0,
    splitTenderId: partial ? ledger.newSplitTenderId() : null,
    refundedCents: 0,
    invoiceNumber,
    cardLastFour: cardNumber.slice(-4),
    accountType: accountTypeOf(cardNumber),
    authCode: approved ? newAuthCode() : '',
    avsResultCode: billTo === null || zip === null ? 'B' : (AVS_BY_ZIP[zip] ?? 'Y'),
    cvvResultCode: cardCode === null ? '' : (CVV_BY_CARD_CODE[cardCode] ?? 'M'),
    networkTransId: approved ? newNetworkTransId() : null,
    storedCredential,
    firstName: text(billTo, 'firstName', 50),
    lastName: text(billTo, 'lastName', 50),
    submitTimeMs: common.nowMs,
    batchId: null,
    settledAtMs: null,
    duplicateKey,
  };
  ledger.add(transaction);
  const eventType =
    responseCode === '4' && !partial
      ? 'net.authorize.payment.fraud.held'
      : type === 'authOnlyTransaction'
        ? 'net.authorize.payment.authorization.created'
        : 'net.authorize.payment.authcapture.created';
  const answer = answerOf(common, fieldsOf(transaction), reason);
  if (partial && transaction.splitTenderId !== null) {
    // A partial approval (API reference "Partial authorization"): the group's splitTenderId and the prepaid card's figures.
    const transactionResponse = answer.transactionResponse as JsonObject;
    transactionResponse.splitTenderId = transaction.splitTenderId;
    transactionResponse.prePaidCard = {
      requestedAmount: decimal(amountCents).toFixed(2),
      approvedAmount: decimal(transaction.authAmountCents).toFixed(2),
      balanceOnCard: '0.00',
    };
  }
  return { answer, events: [{ eventType, transaction }] };
}

/** Releases (completes) or voids a split tender group's held partial approvals. */
function releaseGroup(ledger: Ledger, splitTenderId: string, status: 'completed' | 'voided'): boolean {
  const group = ledger.all().filter((transaction) => transaction.splitTenderId === splitTenderId);
  for (const transaction of group) {
    if (transaction.status !== 'authorizedPendingRelease') continue;
    if (status === 'voided') transaction.status = 'voided';
    else if (transaction.type === 'authOnlyTransaction') transaction.status = 'authorizedPendingCapture';
    else {
      transaction.status = 'capturedPendingSettlement';
      transaction.settleAmountCents = transaction.authAmountCents;
    }
  }
  return group.length > 0;
}

/**
 * updateSplitTenderGroupRequest (API reference "Update Split Tender Group";
 * SOAP service "UpdateSplitTenderGroup: void or release an order after a
 * partial authorization"): splitTenderStatus "completed" releases the
 * group's partial approvals, "voided" voids them.
 */
export function updateSplitTenderGroup(ledger: Ledger, request: JsonObject): CreateOutcome {
  const splitTenderId = text(request, 'splitTenderId', 20);
  const status = text(request, 'splitTenderStatus', 20);
  if (splitTenderId === null || status === null) throw new ApiRefusal('E00014', 'splitTenderId and splitTenderStatus are required.');
  if (status !== 'completed' && status !== 'voided') {
    throw new ApiRefusal(
      'E00003',
      `The 'splitTenderStatus' element is invalid - The value '${status}' is invalid according to its datatype 'splitTenderStatusEnum'.`,
    );
  }
  if (!releaseGroup(ledger, splitTenderId, status)) throw new ApiRefusal('E00040');
  return { answer: { messages: messages('I00001') }, events: [] };
}

/** Which reason code the testing guide's triggers give this card, amount and ZIP. */
function reasonFor(cardNumber: string, amountCents: number, zip: string | null): ReasonNumber {
  if (cardNumber === TEST_CARDS.reasonCodeTrigger && amountCents % 100 === 0 && amountCents / 100 in REASONS) {
    return (amountCents / 100) as ReasonNumber;
  }
  if (zip === DECLINE_ZIP) return 2;
  if (zip === HELD_ZIP) return HELD_REASON;
  return 1;
}

/** The authorization a follow-up names (refTransId), or the reason it cannot be used. */
function referenced(ledger: Ledger, tx: JsonObject): StandInTransaction | 33 | 16 {
  const refTransId = text(tx, 'refTransId', 20);
  if (refTransId === null) return 33;
  return ledger.get(refTransId) ?? 16;
}

function capture(ledger: Ledger, tx: JsonObject, common: Common): CreateOutcome {
  const splitTenderId = text(tx, 'splitTenderId', 20);
  if (splitTenderId !== null) return releaseByCapture(ledger, tx, splitTenderId, common);
  const original = referenced(ledger, tx);
  if (typeof original === 'number') return refused(common, original);
  const fields = { ...fieldsOf(original), refTransId: original.transId, avsResultCode: 'P', cvvResultCode: '' };
  // Reason 311: asked again, the capture reports the earlier one (response code reference).
  if (original.type === 'authOnlyTransaction' && (original.status === 'capturedPendingSettlement' || original.status === 'settledSuccessfully')) {
    return refused(common, 311, fields);
  }
  if (original.type !== 'authOnlyTransaction' || original.status !== 'authorizedPendingCapture') return refused(common, 16);
  const amountCents = cents(text(tx, 'amount', 20));
  if (amountCents === 'invalid' || amountCents === 0) return refused(common, 5);
  // A capture may take less than authorized (partial capture), never more: reason 47.
  if (amountCents !== null && amountCents > original.authAmountCents) return refused(common, 47, fields);
  original.status = 'capturedPendingSettlement';
  original.settleAmountCents = amountCents ?? original.authAmountCents;
  return { answer: answerOf(common, fields, 1), events: [{ eventType: 'net.authorize.payment.capture.created', transaction: original }] };
}

/**
 * A prior auth capture naming a split tender group instead of a transaction
 * releases the group (SIM/AIM guide "Partial Authorization Transactions": "send
 * a prior auth capture request and include the split tender ID instead of a
 * transaction ID"; both at once is an error, whose code the guide does not
 * give: the stand-in answers reason 33).
 */
function releaseByCapture(ledger: Ledger, tx: JsonObject, splitTenderId: string, common: Common): CreateOutcome {
  if (text(tx, 'refTransId', 20) !== null) return refused(common, 33);
  if (!releaseGroup(ledger, splitTenderId, 'completed')) return refused(common, 16);
  return { answer: answerOf(common, { avsResultCode: 'P', cvvResultCode: '' }, 1), events: [] };
}

function voidTransaction(ledger: Ledger, tx: JsonObject, common: Common): CreateOutcome {
  const original = referenced(ledger, tx);
  if (typeof original === 'number') return refused(common, original);
  const fields = { ...fieldsOf(original), refTransId: original.transId, avsResultCode: 'P', cvvResultCode: '' };
  if (original.status === 'voided') return refused(common, 310, fields);
  // Only what has not settled can be voided; a settled charge is refunded instead.
  if (
    !['authorizedPendingCapture', 'authorizedPendingRelease', 'capturedPendingSettlement', 'FDSPendingReview', 'refundPendingSettlement'].includes(
      original.status,
    )
  ) {
    return refused(common, 16);
  }
  original.status = 'voided';
  if (original.refTransId !== null) {
    const charge = ledger.get(original.refTransId);
    if (charge) charge.refundedCents -= original.settleAmountCents;
  }
  return { answer: answerOf(common, fields, 1), events: [{ eventType: 'net.authorize.payment.void.created', transaction: original }] };
}

/**
 * refundTransaction (API reference "Refund a Transaction"): with refTransId,
 * the card's last four digits and expirationDate (may be "XXXX"), only for a
 * settled charge (else reason 54), never more than was settled (reason 55).
 * Without refTransId: an unlinked credit to a full card number.
 */
function refund(ledger: Ledger, tx: JsonObject, common: Common): CreateOutcome {
  const amountCents = cents(text(tx, 'amount', 20));
  if (amountCents === null || amountCents === 'invalid' || amountCents === 0) return refused(common, 5);
  const card = child(child(tx, 'payment') ?? {}, 'creditCard');
  const cardNumber = text(card, 'cardNumber', 16);
  const expirationDate = text(card, 'expirationDate', 7);
  if (cardNumber === null || expirationDate === null) return refused(common, 33);
  const invoiceNumber = text(child(tx, 'order'), 'invoiceNumber', 20);
  const window = duplicateWindowOf(tx);
  const refTransId = text(tx, 'refTransId', 20);
  let charge: StandInTransaction | undefined;
  if (refTransId !== null) {
    charge = ledger.get(refTransId);
    if (charge === undefined) return refused(common, 16);
    // A linked refund names the card by its last four digits (or the whole number); another card is reason 54.
    if (cardNumber.slice(-4) !== charge.cardLastFour || !(/^\d{4}$/.test(cardNumber) || luhnValid(cardNumber))) return refused(common, 54);
  } else if (!luhnValid(cardNumber)) {
    return refused(common, 6);
  } else if (expirationDate === 'XXXX' || parseExpiry(expirationDate) === null) {
    return refused(common, 7);
  }
  const duplicateKey = duplicateKeyOf([common.loginId, 'refundTransaction', cardNumber, expirationDate, String(amountCents), invoiceNumber, refTransId]);
  const original = ledger.duplicateOf(duplicateKey, common.nowMs, window.seconds);
  if (original !== undefined) return duplicateAnswer(common, original, window.sent);
  if (charge !== undefined) {
    if (charge.status !== 'settledSuccessfully') return refused(common, 54);
    if (charge.refundedCents + amountCents > charge.settleAmountCents) return refused(common, 55);
    charge.refundedCents += amountCents;
  }
  const transaction: StandInTransaction = {
    transId: ledger.newTransId(),
    refTransId,
    type: 'refundTransaction',
    status: 'refundPendingSettlement',
    responseCode: '1',
    reasonCode: 1,
    requestedAmountCents: amountCents,
    authAmountCents: amountCents,
    settleAmountCents: amountCents,
    splitTenderId: null,
    refundedCents: 0,
    invoiceNumber,
    cardLastFour: charge?.cardLastFour ?? cardNumber.slice(-4),
    accountType: charge?.accountType ?? accountTypeOf(cardNumber),
    authCode: '',
    avsResultCode: 'P',
    cvvResultCode: '',
    networkTransId: null,
    storedCredential: null,
    firstName: charge?.firstName ?? null,
    lastName: charge?.lastName ?? null,
    submitTimeMs: common.nowMs,
    batchId: null,
    settledAtMs: null,
    duplicateKey,
  };
  ledger.add(transaction);
  return { answer: answerOf(common, fieldsOf(transaction), 1), events: [{ eventType: 'net.authorize.payment.refund.created', transaction }] };
}

/** resolveHeld: a held transaction approved (authorized now) or declined by the merchant's review. */
export function resolveHeld(transaction: StandInTransaction, decision: 'approve' | 'decline'): LedgerEvent {
  if (transaction.status !== 'FDSPendingReview') throw new Error(`transaction ${transaction.transId} is not held (${transaction.status})`);
  if (decision === 'decline') {
    transaction.status = 'declined';
    return { eventType: 'net.authorize.payment.fraud.declined', transaction };
  }
  transaction.status = transaction.type === 'authOnlyTransaction' ? 'authorizedPendingCapture' : 'capturedPendingSettlement';
  if (transaction.type === 'authCaptureTransaction') transaction.settleAmountCents = transaction.authAmountCents;
  transaction.authCode = newAuthCode();
  transaction.networkTransId = newNetworkTransId();
  return { eventType: 'net.authorize.payment.fraud.approved', transaction };
}
