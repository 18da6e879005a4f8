// MTN's published sandbox test data (momodeveloper.mtn.com, "Testing" of the
// API documentation): payee numbers whose transfers end a fixed way in the
// sandbox, and the sandbox's rules (target environment "sandbox", currency
// EUR). MTN's table names outcomes (Failed, Rejected, Timeout, Success,
// Pending) rather than reason codes; the stand-in gives each the reason
// code MoMo documents for it. Any other number succeeds, as in MTN's sandbox.
// Numbers marked stand-in only are not MTN's: they let the tests reach
// reasons MTN's sandbox has no number for.

export const SANDBOX_TARGET_ENVIRONMENT = 'sandbox';
export const SANDBOX_CURRENCY = 'EUR';

export type StandInOutcome = { readonly status: 'SUCCESSFUL' } | { readonly status: 'PENDING' } | { readonly status: 'FAILED'; readonly reason: string };

/** MTN's sandbox numbers (MSISDN digits) and what a transfer to each does. */
export const SANDBOX_NUMBERS = {
  /** "Failed". */
  failed: '46733123450',
  /** "Rejected". */
  rejected: '46733123451',
  /** "Timeout". */
  timeout: '46733123452',
  /** "Success" (MTN's page prints it as 56733123453 in places; both succeed, as any unlisted number does). */
  success: '46733123453',
  /** "Pending": stays PENDING (the stand-in ends it when a test says so). */
  pending: '46733123454',
} as const;

/** Stand-in only: a number with no wallet (account holder inactive, transfers FAILED with PAYEE_NOT_FOUND). */
export const STAND_IN_NO_WALLET = '46733123459';
/** Stand-in only: transfers FAILED with NOT_ENOUGH_FUNDS. */
export const STAND_IN_NOT_ENOUGH_FUNDS = '46733123458';

export function outcomeOfNumber(msisdn: string): StandInOutcome {
  switch (msisdn) {
    case SANDBOX_NUMBERS.failed:
      return { status: 'FAILED', reason: 'INTERNAL_PROCESSING_ERROR' };
    case SANDBOX_NUMBERS.rejected:
      return { status: 'FAILED', reason: 'APPROVAL_REJECTED' };
    case SANDBOX_NUMBERS.timeout:
      return { status: 'FAILED', reason: 'EXPIRED' };
    case SANDBOX_NUMBERS.pending:
      return { status: 'PENDING' };
    case STAND_IN_NO_WALLET:
      return { status: 'FAILED', reason: 'PAYEE_NOT_FOUND' };
    case STAND_IN_NOT_ENOUGH_FUNDS:
      return { status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS' };
    default:
      return { status: 'SUCCESSFUL' };
  }
}

export function hasWallet(msisdn: string): boolean {
  return msisdn !== STAND_IN_NO_WALLET;
}
