// Ledger vocabulary. Every movement is one posting from a debit account to a
// credit account for a positive amount: balanced by construction, as in
// TigerBeetle. An account's balance is credits minus debits.

/**
 * Per-merchant accounts, all in USD cents. The ACH ones (behaviour section
 * 17): `ach_pending` holds checks accepted but not settled; `ach_payins` is
 * the bank side of check payments (as card_payins is of cards);
 * `ach_returns_due` takes a return of a settled check that the available
 * balance could not cover (a bank return is a fact, never refused): its
 * negative balance is what the merchant owes.
 */
export const MERCHANT_ACCOUNT_KINDS = ['available', 'in_flight', 'paid_out', 'card_payins', 'ach_pending', 'ach_payins', 'ach_returns_due'] as const;
export type MerchantAccountKind = (typeof MERCHANT_ACCOUNT_KINDS)[number];

/** The operator's funding account: top-ups are debited from it. It has no floor. */
export const OPERATOR_FUNDING_ACCOUNT = 'operator:funding';

export function merchantAccount(merchantId: string, kind: MerchantAccountKind): string {
  return `${merchantId}:${kind}`;
}

/**
 * The overdraft rule, in one place: a merchant's available account may go
 * down to minus its overdraft, so the overdraft is stored as that floor.
 */
export function overdraftCentsOf(floorCents: number | null): number {
  return floorCents === null ? 0 : -Number(floorCents);
}

export function floorCentsFor(overdraftCents: number): number {
  return overdraftCents === 0 ? 0 : -overdraftCents;
}

/** What each posting kind moves, so the flows and the verifier read from one table. */
export const POSTING_KINDS = {
  /** Operator top-up: funding -> merchant available. */
  'merchant.fund': { refType: 'funding' },
  /** Execute: available -> in flight. */
  'transfer.execute': { refType: 'transfer' },
  /** Success (60): in flight -> paid out. */
  'transfer.succeed': { refType: 'transfer' },
  /** Error (80): in flight -> available. */
  'transfer.fail': { refType: 'transfer' },
  /** A confirmed reversal of a completed payout (the transfer stays 60): paid out -> available. */
  'transfer.reverse': { refType: 'transfer' },
  /** Approved card charge (captured at once): card payins -> available. */
  'charge.approve': { refType: 'charge' },
  /** Capture of an authorization, for the captured amount: card payins -> available. */
  'charge.capture': { refType: 'charge' },
  /** Void of a captured charge, held before the processor is asked: available -> card payins. */
  'charge.void': { refType: 'charge' },
  /** The processor refused that void: card payins -> available. */
  'charge.void_release': { refType: 'charge' },
  /** Refund or unmatched credit, held before the processor is asked (ref: its own record): available -> card payins. */
  'refund.debit': { refType: 'charge' },
  /** The processor declined or failed the refund or credit: card payins -> available. */
  'refund.release': { refType: 'charge' },
  /** A check charge accepted by the ACH network: ach payins -> ach pending (not yet the merchant's). */
  'check.accept': { refType: 'charge' },
  /** The check settled: ach pending -> available. */
  'check.settle': { refType: 'charge' },
  /** The check was voided before origination: ach pending -> ach payins. */
  'check.void': { refType: 'charge' },
  /** The bank returned the check: ach pending (not settled), available, or ach returns due (settled, uncovered) -> ach payins. */
  'check.return': { refType: 'charge' },
  /** The part of a settled check's return the available balance's floor could not cover: ach returns due -> ach payins. */
  'check.return_due': { refType: 'charge' },
  /** At a later check's settlement, what the merchant owes in ach returns due is recovered from it: available -> ach returns due. */
  'check.returns_recover': { refType: 'charge' },
  /** A check refund or credit, held before the network is asked (ref: its own record): available -> ach payins. */
  'check.credit_hold': { refType: 'charge' },
  /** The network refused, voided or returned that credit: ach payins -> available. */
  'check.credit_release': { refType: 'charge' },
} as const;
export type PostingKind = keyof typeof POSTING_KINDS;

export interface PostingInput {
  readonly kind: PostingKind;
  readonly debitAccountId: string;
  readonly creditAccountId: string;
  readonly amountCents: number;
  readonly merchantId: string | null;
  readonly refId: string;
  readonly nowMs: number;
}

export function assertPosting(input: PostingInput): void {
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents <= 0) {
    throw new Error(`posting amount must be a positive integer of cents, got ${input.amountCents}`);
  }
  if (input.debitAccountId === input.creditAccountId) throw new Error('posting debit and credit accounts must differ');
}
