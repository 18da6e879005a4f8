// Ledger vocabulary. Every movement is one posting from a debit account to a
// credit account for a positive amount: balanced by construction, as in
// TigerBeetle. An account's balance is credits minus debits.

/** Per-merchant accounts, all in USD cents. */
export const MERCHANT_ACCOUNT_KINDS = ['available', 'in_flight', 'paid_out', 'card_payins'] as const;
export type MerchantAccountKind = (typeof MERCHANT_ACCOUNT_KINDS)[number];

/** The operator's funding account: top-ups are debited from it. It has no floor. */
export const OPERATOR_FUNDING_ACCOUNT = 'operator:funding';

export function merchantAccount(merchantId: string, kind: MerchantAccountKind): string {
  return `${merchantId}:${kind}`;
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
  /** Approved card charge: card payins -> available. */
  'charge.approve': { refType: 'charge' },
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
