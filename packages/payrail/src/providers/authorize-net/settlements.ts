// Reconciliation's view of Authorize.net (card-settlements.ts): settled
// batches from getSettledBatchList (at most 31 days per call, so the range is
// read in spans) and each batch's transactions from getTransactionList (pages
// of at most 1000). Amounts are read exactly (amounts.ts). Every loop is
// bounded; a range or batch beyond the bounds is an error, never a silent
// truncation that would read as missing transactions.
import type { ProcessorSettlements, SettledBatch, SettledTransaction } from '../card-settlements.ts';
import { centsOfWire } from './amounts.ts';
import { AuthorizeNetUnknownOutcome, messageText, postApi } from './client.ts';
import { settledBatchListRequest, transactionListRequest } from './requests.ts';
import { type AuthorizeNetSettings, BATCH_LIST_SPAN_MS_MAX, BATCH_LIST_SPANS_MAX, TRANSACTION_PAGE_LIMIT, TRANSACTION_PAGES_MAX } from './settings.ts';
import {
  firstMessageCode,
  itemsOf,
  type WireBatch,
  type WireEnvelope,
  type WireSettledBatchListResponse,
  type WireTransactionListResponse,
  type WireTransactionSummary,
} from './wire.ts';

/** Settled statuses by what they are to Payrail; other statuses in a batch (voided, declined, errors) moved no money. */
const SETTLED_KINDS: Readonly<Record<string, SettledTransaction['kind']>> = {
  settledSuccessfully: 'charge',
  refundSettledSuccessfully: 'refund',
};

/** "No records found" (I00004) is an Ok answer with nothing in it. */
function requireOk(answer: WireEnvelope, root: string): void {
  if (answer.messages?.resultCode !== 'Ok') throw new AuthorizeNetUnknownOutcome(`authorize-net ${root}: ${firstMessageCode(answer)} ${messageText(answer)}`);
}

/** The settled transactions of one batch, every page. */
async function batchTransactions(settings: AuthorizeNetSettings, batchId: string, signal: AbortSignal): Promise<SettledTransaction[]> {
  const root = 'getTransactionListRequest';
  const settled: SettledTransaction[] = [];
  for (let page = 1; ; page += 1) {
    if (page > TRANSACTION_PAGES_MAX) throw new Error(`authorize-net: batch ${batchId} has more than ${TRANSACTION_PAGES_MAX} pages of transactions`);
    const answer = await postApi<WireTransactionListResponse>(settings, root, transactionListRequest(batchId, page), signal);
    requireOk(answer, root);
    const rows = itemsOf(answer.transactions, 'transaction');
    for (const row of rows) {
      const transaction = settledTransactionOf(row);
      if (transaction !== null) settled.push(transaction);
    }
    if (rows.length < TRANSACTION_PAGE_LIMIT) return settled;
  }
}

/** A transaction list row as reconciliation reads it; null for a row that moved no money. */
export function settledTransactionOf(row: WireTransactionSummary): SettledTransaction | null {
  const kind = Object.hasOwn(SETTLED_KINDS, row.transactionStatus ?? '') ? SETTLED_KINDS[row.transactionStatus!] : undefined;
  if (kind === undefined) return null;
  if (row.transId === undefined || row.transId === '') throw new Error('authorize-net: a settled transaction without transId');
  return {
    processorRef: row.transId,
    reference: row.invoiceNumber === undefined || row.invoiceNumber === '' ? null : row.invoiceNumber,
    kind,
    amountCents: centsOfWire(row.settleAmount, 'settleAmount'),
    status: row.transactionStatus!,
  };
}

/** The batches settled in one span of at most 31 days. */
async function batchesOfSpan(settings: AuthorizeNetSettings, fromMs: number, toMs: number, signal: AbortSignal): Promise<WireBatch[]> {
  const root = 'getSettledBatchListRequest';
  const answer = await postApi<WireSettledBatchListResponse>(settings, root, settledBatchListRequest(fromMs, toMs), signal);
  requireOk(answer, root);
  return [...itemsOf(answer.batchList, 'batch')];
}

export function settlementsOf(settings: AuthorizeNetSettings): ProcessorSettlements {
  return {
    async settledBatches({ fromMs, toMs, signal }): Promise<readonly SettledBatch[]> {
      if (!(Number.isSafeInteger(fromMs) && Number.isSafeInteger(toMs) && fromMs <= toMs))
        throw new Error('authorize-net: settledBatches needs fromMs <= toMs');
      if (toMs - fromMs > BATCH_LIST_SPAN_MS_MAX * BATCH_LIST_SPANS_MAX) throw new Error('authorize-net: settledBatches range is too long');
      const seen = new Set<string>();
      const batches: SettledBatch[] = [];
      for (let spanFromMs = fromMs; spanFromMs < toMs; spanFromMs += BATCH_LIST_SPAN_MS_MAX) {
        const spanToMs = Math.min(toMs, spanFromMs + BATCH_LIST_SPAN_MS_MAX);
        for (const batch of await batchesOfSpan(settings, spanFromMs, spanToMs, signal)) {
          const batchId = batch.batchId ?? '';
          const settledAtMs = Date.parse(batch.settlementTimeUTC ?? '');
          if (batchId === '' || !Number.isFinite(settledAtMs)) throw new Error('authorize-net: a settled batch without batchId or settlementTimeUTC');
          // The processor's dates are inclusive at both ends: keep [fromMs, toMs) and each batch once.
          if (settledAtMs < fromMs || settledAtMs >= toMs || seen.has(batchId)) continue;
          // eCheck batches are the ACH network's (echeck.ts): each entry is followed by its own status, not reconciled as cards.
          if (batch.paymentMethod === 'eCheck') continue;
          seen.add(batchId);
          batches.push({ batchId, settledAtMs, transactions: await batchTransactions(settings, batchId, signal) });
        }
      }
      return batches.sort((a, b) => a.settledAtMs - b.settledAtMs);
    },
  };
}
