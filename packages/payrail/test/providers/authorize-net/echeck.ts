// eCheck in the stand-in (API reference "Debit a Bank Account", "Credit a
// Bank Account", "Refund a Transaction", "Void a Transaction"; request
// shapes as AuthorizeNet/sample-code-node PaymentTransactions/
// debit-bank-account.js and credit-bank-account.js): createTransactionRequest
// with payment.bankAccount {accountType, routingNumber, accountNumber,
// nameOnAccount, echeckType}. A debit is an authCaptureTransaction, captured
// at once (capturedPendingSettlement); a credit a refundTransaction, linked
// to a settled eCheck debit by refTransId or unlinked
// (refundPendingSettlement). Both settle in eCheck batches of their own.
// A return (test-data.ts ECHECK_RETURNS, or returnItem()) is a transaction
// of its own with status returnedItem, listed in the original's
// returnedItems; the original keeps its settled status, as the Transaction
// Details API shows it. Account numbers are never kept: the last four and a
// digest for the duplicate check. No webhooks are sent for eChecks.
import { answerOf, type Common, type CreateOutcome, duplicateAnswer, duplicateWindowOf, fieldsOf, refused } from './create-transaction.ts';
import { duplicateKeyOf, type Ledger, type StandInTransaction } from './ledger.ts';
import { abaValid, ECHECK_DECLINE_LAST4, ECHECK_RETURNS } from './test-data.ts';
import { ApiRefusal, cents, child, type JsonObject, text } from './wire.ts';

/** bankAccountTypeEnum and echeckTypeEnum (AnetApiSchema.xsd). */
const ACCOUNT_TYPES = new Set(['checking', 'savings', 'businessChecking']);
const ECHECK_TYPES = new Set(['PPD', 'WEB', 'CCD', 'TEL', 'ARC', 'BOC']);
/** "eCheck.Net Type" help: TEL, WEB, ARC and BOC are charges only; a refund goes as PPD or CCD. */
const DEBIT_ONLY_TYPES = new Set(['TEL', 'WEB', 'ARC', 'BOC']);
/** bankAccountType field limits: routingNumber 9, accountNumber 17, nameOnAccount 22 characters. */
const NAME_ON_ACCOUNT_MAX = 22;

interface BankAccountFields {
  readonly accountType: string;
  readonly routingNumber: string;
  readonly accountNumber: string;
  readonly nameOnAccount: string;
  readonly echeckType: string;
}

/** payment.bankAccount of a transaction request, or null when it pays otherwise. */
export function bankAccountOf(tx: JsonObject): JsonObject | null {
  return child(child(tx, 'payment') ?? {}, 'bankAccount');
}

function enumRefusal(name: string, value: string, type: string): ApiRefusal {
  return new ApiRefusal('E00003', `The '${name}' element is invalid - The value '${value}' is invalid according to its datatype '${type}'.`);
}

/** The bank account's fields, or the reason code that refuses them (9 routing number, 10 account number, 33 a blank field). */
function accountFieldsOf(bank: JsonObject): BankAccountFields | 9 | 10 | 33 {
  const accountType = text(bank, 'accountType', 20) ?? 'checking';
  if (!ACCOUNT_TYPES.has(accountType)) throw enumRefusal('accountType', accountType, 'bankAccountTypeEnum');
  const echeckType = text(bank, 'echeckType', 3) ?? 'WEB';
  if (!ECHECK_TYPES.has(echeckType)) throw enumRefusal('echeckType', echeckType, 'echeckTypeEnum');
  const routingNumber = text(bank, 'routingNumber', 9);
  const accountNumber = text(bank, 'accountNumber', 17);
  const nameOnAccount = text(bank, 'nameOnAccount', NAME_ON_ACCOUNT_MAX);
  text(bank, 'bankName', 50);
  text(bank, 'checkNumber', 15);
  if (routingNumber === null || accountNumber === null || nameOnAccount === null || nameOnAccount.trim() === '') return 33;
  if (!abaValid(routingNumber)) return 9;
  if (!/^\d{4,17}$/.test(accountNumber)) return 10;
  return { accountType, routingNumber, accountNumber, nameOnAccount, echeckType };
}

function newEcheck(
  ledger: Ledger,
  fields: {
    type: StandInTransaction['type'];
    status: StandInTransaction['status'];
    responseCode: '1' | '2';
    reasonCode: number;
    amountCents: number;
    refTransId: string | null;
    invoiceNumber: string | null;
    account: BankAccountFields;
    nowMs: number;
    duplicateKey: string;
  },
): StandInTransaction {
  const approved = fields.responseCode === '1';
  const transaction: StandInTransaction = {
    transId: ledger.newTransId(),
    refTransId: fields.refTransId,
    type: fields.type,
    status: fields.status,
    responseCode: fields.responseCode,
    reasonCode: fields.reasonCode,
    requestedAmountCents: fields.amountCents,
    authAmountCents: fields.amountCents,
    settleAmountCents: approved ? fields.amountCents : 0,
    splitTenderId: null,
    refundedCents: 0,
    invoiceNumber: fields.invoiceNumber,
    cardLastFour: fields.account.accountNumber.slice(-4),
    accountType: 'eCheck',
    authCode: '',
    avsResultCode: 'P',
    cvvResultCode: '',
    networkTransId: null,
    storedCredential: null,
    firstName: null,
    lastName: null,
    submitTimeMs: fields.nowMs,
    batchId: null,
    settledAtMs: null,
    duplicateKey: fields.duplicateKey,
    bankAccount: {
      accountType: fields.account.accountType,
      routingNumber: fields.account.routingNumber,
      accountLastFour: fields.account.accountNumber.slice(-4),
      nameOnAccount: fields.account.nameOnAccount,
      echeckType: fields.account.echeckType,
    },
    returnedItems: [],
  };
  ledger.add(transaction);
  return transaction;
}

function duplicateKeyOfEcheck(common: Common, type: string, account: BankAccountFields, amountCents: number, tx: JsonObject): string {
  return duplicateKeyOf([
    common.loginId,
    type,
    account.routingNumber,
    account.accountNumber,
    account.accountType,
    String(amountCents),
    text(child(tx, 'order'), 'invoiceNumber', 20),
    text(tx, 'refTransId', 20),
  ]);
}

/** An eCheck debit: authCaptureTransaction only (an eCheck has no separate authorization). */
export function echeckDebit(ledger: Ledger, tx: JsonObject, type: 'authOnlyTransaction' | 'authCaptureTransaction', common: Common): CreateOutcome {
  if (type !== 'authCaptureTransaction') throw new ApiRefusal('E00003', 'The stand-in models eCheck debits as authCaptureTransaction only.');
  const amountCents = cents(text(tx, 'amount', 20));
  if (amountCents === null || amountCents === 'invalid' || amountCents === 0) return refused(common, 5);
  const account = accountFieldsOf(bankAccountOf(tx)!);
  if (typeof account === 'number') return refused(common, account);
  const window = duplicateWindowOf(tx);
  const duplicateKey = duplicateKeyOfEcheck(common, type, account, amountCents, tx);
  const original = ledger.duplicateOf(duplicateKey, common.nowMs, window.seconds);
  if (original !== undefined) return duplicateAnswer(common, original, window.sent);
  const declined = account.accountNumber.endsWith(ECHECK_DECLINE_LAST4);
  const transaction = newEcheck(ledger, {
    type,
    status: declined ? 'declined' : 'capturedPendingSettlement',
    responseCode: declined ? '2' : '1',
    reasonCode: declined ? 2 : 1,
    amountCents,
    refTransId: null,
    invoiceNumber: text(child(tx, 'order'), 'invoiceNumber', 20),
    account,
    nowMs: common.nowMs,
    duplicateKey,
  });
  return { answer: answerOf(common, fieldsOf(transaction), declined ? 2 : 1), events: [] };
}

/**
 * An eCheck credit: with refTransId, a refund of a settled eCheck debit to
 * the same account (else reason 54), never more than it settled (reason
 * 55); without, an unlinked credit. A charge-only echeckType is reason 246.
 */
export function echeckCredit(ledger: Ledger, tx: JsonObject, common: Common): CreateOutcome {
  const amountCents = cents(text(tx, 'amount', 20));
  if (amountCents === null || amountCents === 'invalid' || amountCents === 0) return refused(common, 5);
  const account = accountFieldsOf(bankAccountOf(tx)!);
  if (typeof account === 'number') return refused(common, account);
  if (DEBIT_ONLY_TYPES.has(account.echeckType)) return refused(common, 246);
  const refTransId = text(tx, 'refTransId', 20);
  let debit: StandInTransaction | undefined;
  if (refTransId !== null) {
    debit = ledger.get(refTransId);
    if (debit === undefined) return refused(common, 16);
    if (debit.bankAccount === undefined || debit.bankAccount.accountLastFour !== account.accountNumber.slice(-4)) return refused(common, 54);
  }
  const window = duplicateWindowOf(tx);
  const duplicateKey = duplicateKeyOfEcheck(common, 'refundTransaction', account, amountCents, tx);
  const original = ledger.duplicateOf(duplicateKey, common.nowMs, window.seconds);
  if (original !== undefined) return duplicateAnswer(common, original, window.sent);
  if (debit !== undefined) {
    if (debit.status !== 'settledSuccessfully') return refused(common, 54);
    if (debit.refundedCents + amountCents > debit.settleAmountCents) return refused(common, 55);
    debit.refundedCents += amountCents;
  }
  const transaction = newEcheck(ledger, {
    type: 'refundTransaction',
    status: 'refundPendingSettlement',
    responseCode: '1',
    reasonCode: 1,
    amountCents,
    refTransId,
    invoiceNumber: text(child(tx, 'order'), 'invoiceNumber', 20),
    account,
    nowMs: common.nowMs,
    duplicateKey,
  });
  return { answer: answerOf(common, fieldsOf(transaction), 1), events: [] };
}

/**
 * Returns a settled eCheck: a new transaction (status returnedItem, naming
 * the original by refTransId) listed in the original's returnedItems. An
 * eCheck is returned at most once.
 */
export function returnItem(ledger: Ledger, transId: string, code: string, description: string, nowMs: number): StandInTransaction {
  const original = ledger.get(transId);
  if (original?.bankAccount === undefined) throw new Error(`no eCheck ${transId}`);
  if (original.status !== 'settledSuccessfully' && original.status !== 'refundSettledSuccessfully')
    throw new Error(`eCheck ${transId} is not settled (${original.status})`);
  if ((original.returnedItems ?? []).length > 0) throw new Error(`eCheck ${transId} is returned already`);
  if (!/^R\d{2}$/.test(code)) throw new Error('a return code is R and two digits');
  const returned: StandInTransaction = {
    ...original,
    transId: ledger.newTransId(),
    refTransId: original.transId,
    status: 'returnedItem',
    refundedCents: 0,
    submitTimeMs: nowMs,
    batchId: null,
    settledAtMs: null,
    duplicateKey: `return:${original.transId}`,
    returnedItems: [],
  };
  ledger.add(returned);
  original.returnedItems = [{ id: returned.transId, dateMs: nowMs, code, description: description.slice(0, 255) }];
  return returned;
}

/** The returns the account-number triggers owe (ECHECK_RETURNS): settled eChecks not yet returned, settled before `nowMs`. */
export function dueTriggeredReturns(ledger: Ledger, nowMs: number): StandInTransaction[] {
  const made: StandInTransaction[] = [];
  for (const transaction of ledger.all()) {
    const trigger = transaction.bankAccount === undefined ? undefined : ECHECK_RETURNS[transaction.bankAccount.accountLastFour];
    if (trigger === undefined || transaction.type !== 'authCaptureTransaction' || transaction.status !== 'settledSuccessfully') continue;
    if ((transaction.returnedItems ?? []).length > 0 || transaction.settledAtMs === null || transaction.settledAtMs > nowMs) continue;
    made.push(returnItem(ledger, transaction.transId, trigger.code, trigger.description, nowMs));
  }
  return made;
}
