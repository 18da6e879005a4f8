// What reconciliation reads from a card processor: its settled batches and
// the transactions in each (Authorize.net's getSettledBatchList and
// getTransactionList). The reconciliation job compares them with Payrail's
// own batches and records every difference; it never changes a payment.

export interface SettledTransaction {
  /** The processor's id of the transaction (Payrail's processorRef). */
  readonly processorRef: string;
  /** Payrail's provider key when the processor kept it (Authorize.net's invoiceNumber); null otherwise. */
  readonly reference: string | null;
  /** A charge (a capture) adds money, a refund or credit takes it back. */
  readonly kind: 'charge' | 'refund';
  /** Settled amount in cents, positive for both kinds. */
  readonly amountCents: number;
  /** The processor's own status word (settledSuccessfully, refundSettledSuccessfully, ...), for the report. */
  readonly status: string;
}

export interface SettledBatch {
  readonly batchId: string;
  /** When the processor settled the batch (ms since the epoch, UTC). */
  readonly settledAtMs: number;
  readonly transactions: readonly SettledTransaction[];
}

export interface ProcessorSettlements {
  /** Batches settled from `fromMs` (inclusive) to `toMs` (exclusive); throws when the processor did not answer. */
  settledBatches(request: { readonly fromMs: number; readonly toMs: number; readonly signal: AbortSignal }): Promise<readonly SettledBatch[]>;
}
