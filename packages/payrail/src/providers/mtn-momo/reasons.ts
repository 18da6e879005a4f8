// MoMo's failure reasons (its ErrorReason codes, the `reason` of a FAILED
// transfer and the `code` of an error answer) in words a merchant can act
// on. A failed payout carries MoMo's code as provider-error-code and this
// text as provider-error-text (behaviour.md section 18). The texts follow
// MTN's common-error reference and its notes on enriched reasons; a code
// MoMo adds later keeps its code and gets a generic text.

const REASON_TEXTS: Readonly<Record<string, string>> = {
  PAYEE_NOT_FOUND: 'The receiver number is not registered for MTN Mobile Money',
  PAYER_NOT_FOUND: 'The paying account was not found on MTN Mobile Money',
  PAYEE_NOT_ALLOWED_TO_RECEIVE: 'The receiver wallet is blocked from receiving money',
  NOT_ENOUGH_FUNDS: 'Not enough funds in the disbursement account, or the receiver wallet reached its balance limit',
  PAYER_LIMIT_REACHED: 'The disbursement account reached its transaction limit',
  NOT_ALLOWED: 'MTN Mobile Money did not allow this account to make the payment',
  NOT_ALLOWED_TARGET_ENVIRONMENT: 'The disbursement account may not use this target environment',
  INVALID_CALLBACK_URL_HOST: 'The callback host is not the one registered for the API user',
  INVALID_CURRENCY: 'The currency is not supported on the disbursement account',
  SERVICE_UNAVAILABLE: 'MTN Mobile Money was unavailable',
  INTERNAL_PROCESSING_ERROR: 'MTN Mobile Money could not process the payment',
  COULD_NOT_PERFORM_TRANSACTION: 'MTN Mobile Money could not perform the transaction in time',
  APPROVAL_REJECTED: 'The payment was rejected',
  PAYMENT_NOT_APPROVED: 'The payment was not approved',
  EXPIRED: 'The payment expired before it completed',
  TRANSACTION_CANCELED: 'The payment was cancelled',
  RESOURCE_NOT_FOUND: 'MTN Mobile Money has no such payment',
  RESOURCE_ALREADY_EXIST: 'MTN Mobile Money already has a payment with this reference',
  PAYEE_DELAYED: 'The receiver did not complete the payment in time',
  PAYER_DELAYED: 'The payment was not completed in time',
  ONGOING: 'The payment was still in progress when it ended',
};

/** A FAILED transfer without a reason. */
export const NO_REASON_CODE = 'FAILED';

/** Payrail's provider-error-code and -text for a MoMo reason (null: a FAILED transfer that named none). */
export function failureOf(reason: string | null): { readonly errorCode: string; readonly errorText: string } {
  if (reason === null) return { errorCode: NO_REASON_CODE, errorText: 'MTN Mobile Money reported the payment failed without a reason' };
  return { errorCode: reason, errorText: REASON_TEXTS[reason] ?? `MTN Mobile Money reported the payment failed (${reason})` };
}
