// The Transaction Reporting requests (API reference "Transaction Reporting":
// getTransactionDetails, getUnsettledTransactionList, getSettledBatchList,
// getTransactionList; field names as in the reference's sample answers and
// AuthorizeNet/sample-code-node TransactionReporting/*.js).
import type { Batch, Ledger, StandInTransaction } from './ledger.ts';
import { ApiRefusal, bool, child, decimal, type JsonObject, messages, text } from './wire.ts';
import { REASONS, type ReasonNumber } from './test-data.ts';

/** getSettledBatchList: the reference limits a query to 31 days; absent dates mean the last day. */
const BATCH_RANGE_MAX_MS = 31 * 24 * 3600 * 1000;
const DAY_MS = 24 * 3600 * 1000;
/** paging.limit bounds (API reference: 1..1000). */
const PAGE_LIMIT_MAX = 1000;

function utc(ms: number): string {
  return new Date(ms).toISOString();
}

/** The stand-in's merchant runs on UTC, so local times equal UTC times, without the zone. */
function local(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '');
}

function responseCodeOf(transaction: StandInTransaction): number {
  if (transaction.status === 'FDSPendingReview') return 4;
  if (transaction.status === 'declined') return 2;
  return 1;
}

export function transactionDetails(ledger: Ledger, request: JsonObject): JsonObject {
  const transId = text(request, 'transId', 20);
  if (transId === null) throw new ApiRefusal('E00014', 'Transaction ID is required.');
  const transaction = ledger.get(transId);
  if (transaction === undefined) throw new ApiRefusal('E00040');
  const batch = ledger.batches().find((candidate) => candidate.batchId === transaction.batchId);
  const reason = REASONS[transaction.reasonCode as ReasonNumber];
  const held = transaction.status === 'FDSPendingReview';
  return {
    transaction: {
      transId: transaction.transId,
      ...(transaction.refTransId === null ? {} : { refTransId: transaction.refTransId }),
      submitTimeUTC: utc(transaction.submitTimeMs),
      submitTimeLocal: local(transaction.submitTimeMs),
      transactionType: transaction.type,
      transactionStatus: transaction.status,
      responseCode: responseCodeOf(transaction),
      responseReasonCode: transaction.reasonCode,
      responseReasonDescription: reason?.text ?? '',
      ...(held ? { FDSFilterAction: 'hold', FDSFilters: [{ name: 'Amount Filter', action: 'hold' }] } : {}),
      authCode: transaction.authCode,
      AVSResponse: transaction.avsResultCode,
      cardCodeResponse: transaction.cvvResultCode,
      ...(batch === undefined ? {} : { batch: batchSummary(batch) }),
      ...(transaction.invoiceNumber === null ? {} : { order: { invoiceNumber: transaction.invoiceNumber } }),
      ...(transaction.splitTenderId === null ? {} : { splitTenderId: transaction.splitTenderId, requestedAmount: decimal(transaction.requestedAmountCents) }),
      authAmount: decimal(transaction.authAmountCents),
      settleAmount: decimal(transaction.settleAmountCents),
      taxExempt: false,
      payment: paymentOf(transaction),
      ...(transaction.firstName === null && transaction.lastName === null
        ? {}
        : { billTo: { firstName: transaction.firstName ?? '', lastName: transaction.lastName ?? '' } }),
      recurringBilling: false,
      product: 'Card Not Present',
      marketType: 'eCommerce',
      ...(transaction.networkTransId === null ? {} : { networkTransId: transaction.networkTransId }),
      ...returnedItemsOf(transaction),
    },
    messages: messages('I00001'),
  };
}

/** payment as the details show it: a masked card, or a masked bank account (bankAccountMaskedType). */
function paymentOf(transaction: StandInTransaction): JsonObject {
  const bank = transaction.bankAccount;
  if (bank === undefined) {
    return { creditCard: { cardNumber: `XXXX${transaction.cardLastFour}`, expirationDate: 'XXXX', cardType: transaction.accountType } };
  }
  return {
    bankAccount: {
      accountType: bank.accountType,
      routingNumber: `XXXX${bank.routingNumber.slice(-4)}`,
      accountNumber: `XXXX${bank.accountLastFour}`,
      nameOnAccount: bank.nameOnAccount,
      echeckType: bank.echeckType,
    },
  };
}

/** An eCheck's returns (ArrayOfReturnedItem, rendered as a JSON array like the answers' other lists); nothing when it has none. */
function returnedItemsOf(transaction: StandInTransaction): JsonObject {
  const items = transaction.returnedItems ?? [];
  if (items.length === 0) return {};
  return {
    returnedItems: items.map((item) => ({
      id: item.id,
      dateUTC: utc(item.dateMs),
      dateLocal: local(item.dateMs),
      code: item.code,
      description: item.description,
    })),
  };
}

function batchSummary(batch: Batch): JsonObject {
  return {
    batchId: batch.batchId,
    settlementTimeUTC: utc(batch.settledAtMs),
    settlementTimeLocal: local(batch.settledAtMs),
    settlementState: 'settledSuccessfully',
    marketType: 'eCommerce',
    product: 'Card Not Present',
  };
}

function listItem(transaction: StandInTransaction): JsonObject {
  return {
    transId: transaction.transId,
    submitTimeUTC: utc(transaction.submitTimeMs),
    submitTimeLocal: local(transaction.submitTimeMs),
    transactionStatus: transaction.status,
    ...(transaction.invoiceNumber === null ? {} : { invoiceNumber: transaction.invoiceNumber }),
    ...(transaction.firstName === null ? {} : { firstName: transaction.firstName }),
    ...(transaction.lastName === null ? {} : { lastName: transaction.lastName }),
    accountType: transaction.accountType,
    accountNumber: `XXXX${transaction.cardLastFour}`,
    settleAmount: decimal(transaction.settleAmountCents),
    marketType: 'eCommerce',
    product: 'Card Not Present',
    hasReturnedItems: (transaction.returnedItems ?? []).length > 0,
  };
}

/** sorting {orderBy: id|submitTimeUTC, orderDescending} and paging {limit 1..1000, offset >= 1 (a page number)}. */
function sortedPage(request: JsonObject, transactions: StandInTransaction[]): { readonly page: StandInTransaction[]; readonly total: number } {
  const sorting = child(request, 'sorting');
  const paging = child(request, 'paging');
  const descending = bool(sorting, 'orderDescending') ?? false;
  transactions.sort((a, b) => (a.submitTimeMs - b.submitTimeMs || Number(a.transId) - Number(b.transId)) * (descending ? -1 : 1));
  const limit = Number(text(paging, 'limit') ?? PAGE_LIMIT_MAX);
  const offset = Number(text(paging, 'offset') ?? 1);
  if (!Number.isInteger(limit) || limit < 1 || limit > PAGE_LIMIT_MAX || !Number.isInteger(offset) || offset < 1) {
    throw new ApiRefusal('E00013', 'Paging limit must be 1 to 1000 and offset at least 1.');
  }
  return { page: transactions.slice((offset - 1) * limit, offset * limit), total: transactions.length };
}

function listAnswer(request: JsonObject, transactions: StandInTransaction[]): JsonObject {
  const { page, total } = sortedPage(request, transactions);
  if (total === 0) return { messages: messages('I00004'), totalNumInResultSet: 0 };
  return { transactions: page.map(listItem), messages: messages('I00001'), totalNumInResultSet: total };
}

/** Every transaction not yet in a batch; status "pendingApproval" narrows to those held for review. */
export function unsettledList(ledger: Ledger, request: JsonObject): JsonObject {
  const status = text(request, 'status', 20);
  if (status !== null && status !== 'any' && status !== 'pendingApproval') {
    throw new ApiRefusal(
      'E00003',
      `The 'status' element is invalid - The value '${status}' is invalid according to its datatype 'TransactionGroupStatusEnum'.`,
    );
  }
  const unsettled = ledger
    .all()
    .filter(
      (transaction) =>
        transaction.batchId === null && transaction.status !== 'returnedItem' && (status !== 'pendingApproval' || transaction.status === 'FDSPendingReview'),
    );
  return listAnswer(request, unsettled);
}

export function transactionList(ledger: Ledger, request: JsonObject): JsonObject {
  const batchId = text(request, 'batchId', 20);
  if (batchId === null) throw new ApiRefusal('E00014', 'Batch ID is required.');
  const batch = ledger.batches().find((candidate) => candidate.batchId === batchId);
  if (batch === undefined) throw new ApiRefusal('E00040');
  return listAnswer(
    request,
    batch.transIds.map((transId) => ledger.get(transId)).filter((transaction) => transaction !== undefined),
  );
}

function dateOf(value: string | null): number | null {
  if (value === null) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new ApiRefusal('E00003', `The value '${value}' is invalid according to its datatype 'DateTime'.`);
  return ms;
}

export function settledBatchList(ledger: Ledger, request: JsonObject, nowMs: number): JsonObject {
  const withStatistics = bool(request, 'includeStatistics') ?? false;
  const first = dateOf(text(request, 'firstSettlementDate', 30));
  const last = dateOf(text(request, 'lastSettlementDate', 30));
  const fromMs = first ?? (last === null ? nowMs - DAY_MS : last - BATCH_RANGE_MAX_MS);
  const toMs = last ?? (first === null ? nowMs : Math.min(nowMs, first + BATCH_RANGE_MAX_MS));
  if (toMs < fromMs || toMs - fromMs > BATCH_RANGE_MAX_MS) throw new ApiRefusal('E00013', 'The date range cannot exceed 31 days.');
  const batches = ledger.batches().filter((batch) => batch.settledAtMs >= fromMs && batch.settledAtMs <= toMs);
  if (batches.length === 0) return { messages: messages('I00004') };
  return {
    batchList: batches.map((batch) => ({
      ...batchSummary(batch),
      paymentMethod: batch.paymentMethod,
      ...(withStatistics ? { statistics: statisticsOf(ledger, batch) } : {}),
    })),
    messages: messages('I00001'),
  };
}

function statisticsOf(ledger: Ledger, batch: Batch): JsonObject[] {
  const byType = new Map<string, { chargeCents: number; chargeCount: number; refundCents: number; refundCount: number }>();
  for (const transId of batch.transIds) {
    const transaction = ledger.get(transId);
    if (transaction === undefined) continue;
    const row = byType.get(transaction.accountType) ?? { chargeCents: 0, chargeCount: 0, refundCents: 0, refundCount: 0 };
    if (transaction.type === 'refundTransaction') {
      row.refundCents += transaction.settleAmountCents;
      row.refundCount += 1;
    } else {
      row.chargeCents += transaction.settleAmountCents;
      row.chargeCount += 1;
    }
    byType.set(transaction.accountType, row);
  }
  return [...byType].map(([accountType, row]) => ({
    accountType,
    chargeAmount: decimal(row.chargeCents),
    chargeCount: row.chargeCount,
    refundAmount: decimal(row.refundCents),
    refundCount: row.refundCount,
    voidCount: 0,
    declineCount: 0,
    errorCount: 0,
  }));
}
