// What reconciliation with the card processor calls a difference, decided
// from plain facts: the processor's settled batches of one UTC day, the
// Payrail transactions they name, and the transactions Payrail settled that
// day. Pure: the flow (flows/operations/processor-reconciliation.ts) reads the
// facts and records the differences.
//
// Matching: a processor transaction is Payrail's transaction whose
// processor_ref equals its id; failing that, the one its reference (Payrail's
// provider key, Authorize.net's invoiceNumber) names. Amounts are compared as
// the batch totals count them: a charge's captured amount, a refund's amount.

export const DIFFERENCE_KINDS = [
  /** The processor settled a transaction Payrail has no record of. */
  'unknown_to_payrail',
  /** Payrail settled a transaction the processor did not settle that day or the day before. */
  'missing_at_processor',
  /** Both settled it, for different amounts. */
  'amount_mismatch',
  /** The processor settled a refund that Payrail has as a charge, or the other way round. */
  'kind_mismatch',
  /** The processor settled a transaction Payrail holds as not captured (authorized, voided, expired, declined, pending). */
  'state_mismatch',
  /** A processor batch's net total differs from Payrail's record of the same transactions. */
  'batch_total_mismatch',
] as const;

export type DifferenceKind = (typeof DIFFERENCE_KINDS)[number];

export function isDifferenceKind(text: string): text is DifferenceKind {
  return (DIFFERENCE_KINDS as readonly string[]).includes(text);
}

/** A transaction as the processor settled it (providers/card-settlements.ts has the same shape). */
export interface ProcessorTransactionFact {
  readonly processorRef: string;
  readonly reference: string | null;
  readonly kind: 'charge' | 'refund';
  readonly amountCents: number;
  readonly status: string;
}

export interface ProcessorBatchFact {
  readonly batchId: string;
  readonly settledAtMs: number;
  readonly transactions: readonly ProcessorTransactionFact[];
}

/** A Payrail card transaction, as far as reconciliation looks at it. */
export interface PayrailTransactionFact {
  readonly pk: number;
  readonly merchantId: string;
  readonly kind: 'charge' | 'refund';
  readonly status: string;
  /** authorized, captured, settled, voided, expired; null before the processor approved. */
  readonly stage: string | null;
  /** What the transaction moves when settled: a charge's captured amount, a refund's amount. */
  readonly settledCents: number;
  readonly processorRef: string | null;
  readonly batchId: number | null;
}

export interface Difference {
  readonly kind: DifferenceKind;
  /** Names the difference within its day: ref:<processor ref>, charge:<pk> or batch:<processor batch id>. */
  readonly subject: string;
  readonly processorBatchId: string | null;
  readonly processorRef: string | null;
  readonly chargePk: number | null;
  readonly merchantId: string | null;
  readonly payrailCents: number | null;
  readonly processorCents: number | null;
  /** One sentence for the operator: facts only, never card data. */
  readonly detail: string;
}

export interface ReconciliationFacts {
  /** Batches the processor settled on the day reconciled. */
  readonly batches: readonly ProcessorBatchFact[];
  /** Batches it settled the day before: only to tell that a transaction Payrail settled today was settled by the processor then. */
  readonly previousBatches: readonly ProcessorBatchFact[];
  /** The Payrail transaction each processor transaction (of both lists) matched, by processor ref; absent: none. */
  readonly matched: ReadonlyMap<string, PayrailTransactionFact>;
  /** Transactions Payrail settled on the day reconciled. */
  readonly payrailSettled: readonly PayrailTransactionFact[];
}

const SETTLEABLE_STAGES = new Set(['captured', 'settled']);

function dollars(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

const signed = (kind: 'charge' | 'refund', cents: number): number => (kind === 'charge' ? cents : -cents);

/** Every difference the facts show, in a stable order: processor transactions, Payrail's, then batches. */
export function findDifferences(facts: ReconciliationFacts): Difference[] {
  const found: Difference[] = [];
  const seenPks = new Set<number>();
  for (const batch of facts.previousBatches) {
    for (const txn of batch.transactions) {
      const row = facts.matched.get(txn.processorRef);
      if (row !== undefined) seenPks.add(row.pk);
    }
  }
  for (const batch of facts.batches) {
    let processorNet = 0;
    let payrailNet = 0;
    const payrailBatches = new Set<number>();
    for (const txn of batch.transactions) {
      processorNet += signed(txn.kind, txn.amountCents);
      const row = facts.matched.get(txn.processorRef);
      if (row !== undefined) {
        seenPks.add(row.pk);
        if (row.batchId !== null) payrailBatches.add(row.batchId);
        if (row.status === 'approved' && row.stage !== null && SETTLEABLE_STAGES.has(row.stage)) payrailNet += signed(row.kind, row.settledCents);
      }
      const difference = transactionDifference(batch.batchId, txn, row);
      if (difference !== null) found.push(difference);
    }
    if (processorNet !== payrailNet) {
      const held = payrailBatches.size === 0 ? 'none' : [...payrailBatches].sort((a, b) => a - b).join(', ');
      found.push({
        kind: 'batch_total_mismatch',
        subject: `batch:${batch.batchId}`,
        processorBatchId: batch.batchId,
        processorRef: null,
        chargePk: null,
        merchantId: null,
        payrailCents: payrailNet,
        processorCents: processorNet,
        detail: `processor batch ${batch.batchId} nets ${dollars(processorNet)}; Payrail's record of its ${batch.transactions.length} transaction(s) nets ${dollars(payrailNet)} (Payrail batches: ${held})`,
      });
    }
  }
  for (const row of facts.payrailSettled) {
    if (seenPks.has(row.pk)) continue;
    found.push({
      kind: 'missing_at_processor',
      subject: `charge:${row.pk}`,
      processorBatchId: null,
      processorRef: row.processorRef,
      chargePk: row.pk,
      merchantId: row.merchantId,
      payrailCents: row.settledCents,
      processorCents: null,
      detail: `Payrail settled ${row.kind} ${row.pk} (${dollars(row.settledCents)}, processor ref ${row.processorRef ?? 'none'}) in its batch ${row.batchId ?? 'none'}; the processor settled no such transaction that day or the day before`,
    });
  }
  return found;
}

function transactionDifference(batchId: string, txn: ProcessorTransactionFact, row: PayrailTransactionFact | undefined): Difference | null {
  const base = { subject: `ref:${txn.processorRef}`, processorBatchId: batchId, processorRef: txn.processorRef, processorCents: txn.amountCents };
  const settled = `the processor settled ${txn.kind} ${txn.processorRef} (${dollars(txn.amountCents)}, ${txn.status}) in batch ${batchId}`;
  if (row === undefined) {
    const reference = txn.reference === null ? '' : ` or reference ${txn.reference}`;
    return {
      ...base,
      kind: 'unknown_to_payrail',
      chargePk: null,
      merchantId: null,
      payrailCents: null,
      detail: `${settled}; Payrail has no transaction with that id${reference}`,
    };
  }
  const known = { ...base, chargePk: row.pk, merchantId: row.merchantId, payrailCents: row.settledCents };
  if (row.kind !== txn.kind) return { ...known, kind: 'kind_mismatch', detail: `${settled}; Payrail has it as ${row.kind} ${row.pk}` };
  if (row.status !== 'approved' || row.stage === null || !SETTLEABLE_STAGES.has(row.stage)) {
    return { ...known, kind: 'state_mismatch', detail: `${settled}; Payrail has ${row.kind} ${row.pk} as ${row.stage ?? row.status}` };
  }
  if (row.settledCents !== txn.amountCents) {
    return { ...known, kind: 'amount_mismatch', detail: `${settled}; Payrail has ${row.kind} ${row.pk} at ${dollars(row.settledCents)}` };
  }
  return null;
}

/** The UTC day `YYYY-MM-DD` as its first millisecond, or null when it is not a real date. */
export function dayStartMs(day: string): number | null {
  const match = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(day);
  if (match === null) return null;
  const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return new Date(ms).toISOString().slice(0, 10) === day ? ms : null;
}

/** The UTC day a moment falls on, as YYYY-MM-DD. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
