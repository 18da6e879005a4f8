// The eCheck request bodies (API reference, "Debit a Bank Account" and
// "Credit a Bank Account"; AuthorizeNet/sample-code-node
// PaymentTransactions/debit-bank-account.js and credit-bank-account.js):
// createTransactionRequest with payment.bankAccount instead of a card. Keys
// follow AnetApiSchema.xsd's order (requests.ts says why): in
// transactionRequest transactionType, amount, payment, refTransId, order,
// transactionSettings; in bankAccountType accountType, routingNumber,
// accountNumber, nameOnAccount, echeckType.
//
// The account number is revealed here and only here, into the body the
// transport sends; nothing built here is logged.
import { formatCents } from '../../domain/money.ts';
import type { SecCode } from '../../domain/ach.ts';
import type { AchSubmission } from '../ach-network.ts';
import { DUPLICATE_WINDOW_SECONDS, NAME_ON_ACCOUNT_CHARS_MAX } from './settings.ts';
import type { RequestFields } from './requests.ts';

/** bankAccountTypeEnum (AnetApiSchema.xsd). */
export type WireBankAccountType = 'checking' | 'savings' | 'businessChecking';

/**
 * The echeckType of an entry. TEL and WEB entries are charges only
 * (Authorize.net's "eCheck.Net Type" help: CCD and PPD charge or refund, TEL
 * and WEB charge); a credit of such a check therefore goes as PPD, the
 * consumer's charge-or-refund class. CCD stays CCD both ways.
 */
export function echeckTypeOf(secCode: SecCode, direction: AchSubmission['direction']): SecCode {
  if (direction === 'credit' && (secCode === 'TEL' || secCode === 'WEB')) return 'PPD';
  return secCode;
}

/**
 * The account type on the wire: a CCD entry moves money to or from a
 * business, and "charge and refund transactions to a business checking
 * account will always be CCD" (same help page), so a checking account under
 * CCD is businessChecking. Savings stays savings.
 */
export function wireAccountTypeOf(submission: Pick<AchSubmission, 'account' | 'secCode'>): WireBankAccountType {
  if (submission.account.accountType === 'checking' && submission.secCode === 'CCD') return 'businessChecking';
  return submission.account.accountType;
}

function bankAccountOf(submission: Omit<AchSubmission, 'signal'>): Record<string, string> {
  return {
    accountType: wireAccountTypeOf(submission),
    routingNumber: submission.account.routingNumber,
    accountNumber: submission.account.accountNumber.reveal(),
    nameOnAccount: submission.account.name.slice(0, NAME_ON_ACCOUNT_CHARS_MAX),
    echeckType: echeckTypeOf(submission.secCode, submission.direction),
  };
}

/**
 * A debit (authCaptureTransaction: an eCheck has no separate capture) or a
 * credit (refundTransaction: with refTransId for the refund of a debit,
 * without for an unlinked credit). invoiceNumber and refId are the entry's
 * reference and the duplicate window is the card side's, so a re-sent
 * submission is answered as a duplicate of the first (reason 11).
 */
export function echeckRequest(submission: Omit<AchSubmission, 'signal'>): RequestFields {
  const linked = submission.direction === 'credit' && submission.refunds !== undefined ? { refTransId: submission.refunds.networkRef } : {};
  return {
    refId: submission.reference,
    transactionRequest: {
      transactionType: submission.direction === 'debit' ? 'authCaptureTransaction' : 'refundTransaction',
      amount: formatCents(submission.amountCents),
      payment: { bankAccount: bankAccountOf(submission) },
      ...linked,
      order: { invoiceNumber: submission.reference },
      transactionSettings: { setting: [{ settingName: 'duplicateWindow', settingValue: String(DUPLICATE_WINDOW_SECONDS) }] },
    },
  };
}
