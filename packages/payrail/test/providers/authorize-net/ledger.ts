// What the stand-in keeps: its transactions, in memory, with the status words
// getTransactionDetails reports (Transaction Details guide / API reference
// "transactionStatus": authorizedPendingCapture, capturedPendingSettlement,
// settledSuccessfully, voided, declined, FDSPendingReview,
// refundPendingSettlement, refundSettledSuccessfully) and the batches settle()
// makes. Card numbers are never kept: only the last four and a digest for the
// duplicate check.
import { createHash, randomInt } from 'node:crypto';

export type TransactionType = 'authOnlyTransaction' | 'authCaptureTransaction' | 'refundTransaction';
export type TransactionStatus =
  | 'authorizedPendingCapture'
  | 'capturedPendingSettlement'
  | 'settledSuccessfully'
  | 'voided'
  | 'declined'
  | 'FDSPendingReview'
  | 'refundPendingSettlement'
  | 'refundSettledSuccessfully'
  /** A partial approval whose split tender group is not yet released (updateSplitTenderGroupRequest). */
  | 'authorizedPendingRelease'
  /** An eCheck return: a transaction of its own, listed in the original's returnedItems. */
  | 'returnedItem'
  /** Ended by the gateway without moving money (stand-in control endWithoutMoving). */
  | 'failedReview'
  | 'generalError';

/** An eCheck's bank account as the stand-in keeps it: never the whole account number. */
export interface StandInBankAccount {
  readonly accountType: string;
  readonly routingNumber: string;
  readonly accountLastFour: string;
  readonly nameOnAccount: string;
  readonly echeckType: string;
}

/** returnedItemType: one return of an eCheck. */
export interface StandInReturnedItem {
  readonly id: string;
  readonly dateMs: number;
  readonly code: string;
  readonly description: string;
}

export interface StoredCredentialFields {
  readonly isFirstRecurringPayment: boolean | null;
  readonly isFirstSubsequentAuth: boolean | null;
  readonly isSubsequentAuth: boolean | null;
  readonly isStoredCredentials: boolean | null;
  readonly originalNetworkTransId: string | null;
  readonly reason: string | null;
}

export interface StandInTransaction {
  readonly transId: string;
  /** The authorization a refund names; null for charges and unlinked credits. */
  readonly refTransId: string | null;
  readonly type: TransactionType;
  status: TransactionStatus;
  /** '1' approved, '2' declined, '4' held, as first answered; a resolved hold keeps '4'. */
  readonly responseCode: '1' | '2' | '4';
  readonly reasonCode: number;
  /** What the request asked; more than authAmountCents for a partial approval. */
  readonly requestedAmountCents: number;
  readonly authAmountCents: number;
  /** The split tender group of a partial approval; null otherwise. */
  readonly splitTenderId: string | null;
  settleAmountCents: number;
  /** Cents refunded against this charge so far (refunds pending or settled). */
  refundedCents: number;
  readonly invoiceNumber: string | null;
  readonly cardLastFour: string;
  readonly accountType: string;
  authCode: string;
  readonly avsResultCode: string;
  readonly cvvResultCode: string;
  networkTransId: string | null;
  readonly storedCredential: StoredCredentialFields | null;
  readonly firstName: string | null;
  readonly lastName: string | null;
  readonly submitTimeMs: number;
  batchId: string | null;
  settledAtMs: number | null;
  /** The duplicate check's digest of the fields the gateway compares; not a card number. */
  readonly duplicateKey: string;
  /** Set for an eCheck (payment.bankAccount); absent for cards. */
  readonly bankAccount?: StandInBankAccount;
  /** An eCheck's returns, oldest first. */
  returnedItems?: StandInReturnedItem[];
}

export interface Batch {
  readonly batchId: string;
  /** Authorize.net settles cards and eChecks in batches of their own. */
  readonly paymentMethod: 'creditCard' | 'eCheck';
  readonly settledAtMs: number;
  readonly transIds: readonly string[];
}

/** A bound on what one stand-in keeps, so a runaway test fails loudly instead of eating memory. */
export const TRANSACTIONS_MAX = 10_000;

export class Ledger {
  readonly #transactions = new Map<string, StandInTransaction>();
  readonly #batches: Batch[] = [];
  #nextTransId = 60_000_000_000 + randomInt(1_000_000) * 1000;
  #nextSplitTenderId = 100_000 + randomInt(1000) * 100;
  #nextBatchId = 1_000_000 + randomInt(1000) * 100;

  newSplitTenderId(): string {
    this.#nextSplitTenderId += 1;
    return String(this.#nextSplitTenderId);
  }

  newTransId(): string {
    this.#nextTransId += 1;
    return String(this.#nextTransId);
  }

  add(transaction: StandInTransaction): void {
    if (this.#transactions.size >= TRANSACTIONS_MAX) throw new Error(`the stand-in keeps at most ${TRANSACTIONS_MAX} transactions`);
    this.#transactions.set(transaction.transId, transaction);
  }

  get(transId: string): StandInTransaction | undefined {
    return this.#transactions.get(transId);
  }

  all(): readonly StandInTransaction[] {
    return [...this.#transactions.values()];
  }

  /** The newest transaction with this digest submitted within the window, if any. */
  duplicateOf(duplicateKey: string, nowMs: number, windowSeconds: number): StandInTransaction | undefined {
    let found: StandInTransaction | undefined;
    for (const transaction of this.#transactions.values()) {
      if (transaction.duplicateKey === duplicateKey && nowMs - transaction.submitTimeMs < windowSeconds * 1000) found = transaction;
    }
    return found;
  }

  /**
   * Settles every captured charge and pending refund (the gateway's daily
   * cut-off): cards into one new batch, which is answered, and eChecks into
   * another (paymentMethod eCheck), made only when there are any.
   */
  settle(nowMs: number): Batch {
    const cards = this.#settleInto('creditCard', nowMs);
    this.#settleInto('eCheck', nowMs);
    return cards;
  }

  #settleInto(paymentMethod: Batch['paymentMethod'], nowMs: number): Batch {
    this.#nextBatchId += 1;
    const batchId = String(this.#nextBatchId);
    const transIds: string[] = [];
    for (const transaction of this.#transactions.values()) {
      const settled = SETTLES_TO[transaction.status];
      if (settled === undefined || (transaction.bankAccount !== undefined) !== (paymentMethod === 'eCheck')) continue;
      transaction.status = settled;
      transaction.batchId = batchId;
      transaction.settledAtMs = nowMs;
      transIds.push(transaction.transId);
    }
    const batch = { batchId, paymentMethod, settledAtMs: nowMs, transIds };
    // An empty cut-off makes no batch at the gateway: the settled batch list shows only batches with transactions.
    if (transIds.length > 0) this.#batches.push(batch);
    return batch;
  }

  batches(): readonly Batch[] {
    return this.#batches;
  }
}

const SETTLES_TO: Partial<Record<TransactionStatus, TransactionStatus>> = {
  capturedPendingSettlement: 'settledSuccessfully',
  refundPendingSettlement: 'refundSettledSuccessfully',
};

/** The digest of the fields the duplicate check compares (support article "Error 11: A duplicate transaction has been submitted"). */
export function duplicateKeyOf(fields: readonly (string | null)[]): string {
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}

const AUTH_CODE_LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';

/** A six-character approval code like the sandbox's. */
export function newAuthCode(): string {
  let code = '';
  for (let i = 0; i < 6; i++) code += AUTH_CODE_LETTERS[randomInt(AUTH_CODE_LETTERS.length)];
  return code;
}

/** A network transaction id (15 digits, the shape Visa's take). */
export function newNetworkTransId(): string {
  return String(randomInt(100_000, 999_999)) + String(randomInt(100_000_000, 999_999_999));
}
