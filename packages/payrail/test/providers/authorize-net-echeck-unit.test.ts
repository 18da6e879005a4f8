// The eCheck connector's pure parts: request bodies in schema order with the
// bank account, and every answer mapping (echeck-answers.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Secret } from '../../src/domain/secret.ts';
import { achReportOf, echeckAnswerOf, returnCodeOf, submitResultOfDetails } from '../../src/providers/authorize-net/echeck-answers.ts';
import { echeckRequest } from '../../src/providers/authorize-net/echeck-requests.ts';

const BASE = {
  reference: 'ref1',
  merchantId: 'm',
  direction: 'debit' as const,
  amountCents: 12345,
  currency: 'USD',
  account: {
    name: 'A Name That Is Much Longer Than Twenty-Two',
    routingNumber: '121042882',
    accountNumber: new Secret('123456789'),
    accountType: 'checking' as const,
  },
  secCode: 'WEB' as const,
};

describe('eCheck request bodies', () => {
  test('a debit: authCaptureTransaction, bankAccount in schema order, reference as refId and invoice number, the duplicate window', () => {
    const body = echeckRequest(BASE);
    assert.deepEqual(JSON.parse(JSON.stringify(body)), {
      refId: 'ref1',
      transactionRequest: {
        transactionType: 'authCaptureTransaction',
        amount: '123.45',
        payment: {
          bankAccount: {
            accountType: 'checking',
            routingNumber: '121042882',
            accountNumber: '123456789',
            nameOnAccount: 'A Name That Is Much Lo',
            echeckType: 'WEB',
          },
        },
        order: { invoiceNumber: 'ref1' },
        transactionSettings: { setting: [{ settingName: 'duplicateWindow', settingValue: '28800' }] },
      },
    });
    assert.deepEqual(Object.keys((body.transactionRequest as Record<string, unknown>) ?? {}), [
      'transactionType',
      'amount',
      'payment',
      'order',
      'transactionSettings',
    ]);
  });

  test('a refund: refundTransaction linked by refTransId, WEB and TEL sent as PPD; CCD on checking is businessChecking', () => {
    const refund = echeckRequest({ ...BASE, direction: 'credit', secCode: 'TEL', refunds: { reference: 'deb1', networkRef: '6001' } })
      .transactionRequest as Record<string, unknown>;
    assert.deepEqual(Object.keys(refund), ['transactionType', 'amount', 'payment', 'refTransId', 'order', 'transactionSettings']);
    assert.equal(refund.transactionType, 'refundTransaction');
    assert.equal(refund.refTransId, '6001');
    assert.equal((refund.payment as { bankAccount: { echeckType: string } }).bankAccount.echeckType, 'PPD');
    const ccd = echeckRequest({ ...BASE, direction: 'credit', secCode: 'CCD' }).transactionRequest as Record<string, unknown>;
    assert.equal('refTransId' in ccd, false, 'an unlinked credit names no transaction');
    assert.deepEqual((ccd.payment as { bankAccount: Record<string, string> }).bankAccount.accountType, 'businessChecking');
    assert.deepEqual((ccd.payment as { bankAccount: Record<string, string> }).bankAccount.echeckType, 'CCD');
    const savings = echeckRequest({ ...BASE, secCode: 'CCD', account: { ...BASE.account, accountType: 'savings' } }).transactionRequest as Record<
      string,
      unknown
    >;
    assert.equal((savings.payment as { bankAccount: Record<string, string> }).bankAccount.accountType, 'savings');
  });
});

describe('eCheck answers', () => {
  test('createTransaction: 1 accepted, 2 declined, 3 account errors declined and others failed, 4 held is unknown, 11 and 13 named', () => {
    assert.deepEqual(echeckAnswerOf({ responseCode: '1', transId: '6001', messages: [{ code: '1', description: 'ok' }] }), {
      kind: 'outcome',
      result: { outcome: 'accepted', networkRef: '6001', declineMessage: null },
    });
    assert.throws(() => echeckAnswerOf({ responseCode: '1', transId: '0' }), /without a transaction id/);
    assert.deepEqual(echeckAnswerOf({ responseCode: '2', transId: '6002', errors: [{ errorCode: '2', errorText: 'This transaction has been declined.' }] }), {
      kind: 'outcome',
      result: { outcome: 'declined', networkRef: '6002', declineMessage: '2: This transaction has been declined.' },
    });
    for (const [reason, outcome] of [
      ['9', 'declined'],
      ['10', 'declined'],
      ['101', 'declined'],
      ['33', 'failed'],
      ['19', 'failed'],
      ['246', 'failed'],
    ] as const) {
      const read = echeckAnswerOf({ responseCode: '3', transId: '0', errors: { error: [{ errorCode: reason, errorText: 'words' }] } });
      assert.deepEqual(read, { kind: 'outcome', result: { outcome, networkRef: '', declineMessage: `${reason}: words` } }, reason);
    }
    assert.throws(() => echeckAnswerOf({ responseCode: '4', transId: '6003', messages: [{ code: '252', description: 'held' }] }), /held for review/);
    assert.throws(() => echeckAnswerOf({ responseCode: '5', transId: '6003' }), /responseCode/);
    assert.deepEqual(echeckAnswerOf({ responseCode: '3', transId: '6004', errors: [{ errorCode: '11', errorText: 'dup' }] }), {
      kind: 'duplicate',
      transId: '6004',
    });
    assert.deepEqual(echeckAnswerOf({ responseCode: '3', transId: '0', errors: [{ errorCode: '13', errorText: 'login' }] }), { kind: 'credentials_refused' });
  });

  test('details of a duplicate: taken statuses accepted, refused ones declined or failed, reviews and strangers unknown', () => {
    const details = (transactionStatus: string, more: Record<string, unknown> = {}) => ({
      transId: '7001',
      transactionStatus,
      order: { invoiceNumber: 'ref1' },
      ...more,
    });
    for (const status of [
      'capturedPendingSettlement',
      'settledSuccessfully',
      'refundPendingSettlement',
      'refundSettledSuccessfully',
      'settlementError',
      'voided',
    ]) {
      assert.deepEqual(submitResultOfDetails(details(status), 'ref1'), { outcome: 'accepted', networkRef: '7001', declineMessage: null }, status);
    }
    assert.deepEqual(submitResultOfDetails(details('declined', { responseReasonCode: 2, responseReasonDescription: 'Declined' }), 'ref1'), {
      outcome: 'declined',
      networkRef: '7001',
      declineMessage: '2: Declined',
    });
    assert.equal(submitResultOfDetails(details('failedReview'), 'ref1').outcome, 'declined');
    assert.equal(submitResultOfDetails(details('communicationError'), 'ref1').outcome, 'failed');
    assert.throws(() => submitResultOfDetails(details('underReview'), 'ref1'), /held for review/);
    assert.throws(() => submitResultOfDetails(details('chargeback'), 'ref1'), /not one Payrail knows/);
    assert.throws(() => submitResultOfDetails(details('capturedPendingSettlement'), 'other'), /another invoice number/);
  });

  test('status: pending, originated at the batch time, returned by the first returned item, voided, unknown otherwise', () => {
    assert.deepEqual(achReportOf({ transactionStatus: 'capturedPendingSettlement' }), { state: 'pending' });
    assert.deepEqual(achReportOf({ transactionStatus: 'refundPendingSettlement' }), { state: 'pending' });
    assert.deepEqual(achReportOf({ transactionStatus: 'underReview' }), { state: 'pending' });
    assert.deepEqual(achReportOf({ transactionStatus: 'settledSuccessfully', batch: { batchId: '9', settlementTimeUTC: '2026-03-02T21:05:00Z' } }), {
      state: 'originated',
      originatedAtMs: Date.UTC(2026, 2, 2, 21, 5),
    });
    assert.throws(() => achReportOf({ transactionStatus: 'settledSuccessfully' }), /settlementTimeUTC is not a time/);
    const returned = {
      transactionStatus: 'settledSuccessfully',
      batch: { settlementTimeUTC: '2026-03-02T21:05:00Z' },
      returnedItems: [
        { id: '8002', dateUTC: '2026-03-10T10:00:00Z', dateLocal: '2026-03-10T03:00:00', code: 'R10', description: 'Later' },
        { id: '8001', dateUTC: '2026-03-04T10:00:00Z', dateLocal: '2026-03-04T03:00:00', code: 'R01', description: 'Insufficient Funds' },
      ],
    };
    assert.deepEqual(achReportOf(returned), {
      state: 'returned',
      returnedAtMs: Date.UTC(2026, 2, 4, 10),
      returnCode: 'R01',
      returnReason: 'Insufficient Funds',
    });
    // The wrapped form some answers keep: {returnedItem: {...}}.
    assert.deepEqual(
      achReportOf({
        transactionStatus: 'settledSuccessfully',
        returnedItems: { returnedItem: { dateUTC: '2026-03-04T10:00:00Z', code: '2', description: '' } },
      }),
      {
        state: 'returned',
        returnedAtMs: Date.UTC(2026, 2, 4, 10),
        returnCode: 'R02',
        returnReason: null,
      },
    );
    for (const status of ['voided', 'declined', 'failedReview', 'generalError', 'communicationError'])
      assert.deepEqual(achReportOf({ transactionStatus: status }), { state: 'voided' }, status);
    assert.throws(() => achReportOf({ transactionStatus: 'returnedItem' }), /not one Payrail knows/);
    assert.throws(() => achReportOf({ transactionStatus: '' }), /not one Payrail knows/);
  });

  test('return codes are NACHA codes; anything else is an answer Payrail cannot use', () => {
    assert.equal(returnCodeOf('R01'), 'R01');
    assert.equal(returnCodeOf('r29'), 'R29');
    assert.equal(returnCodeOf('1'), 'R01');
    assert.throws(() => returnCodeOf('X1'), /not a NACHA code/);
    assert.throws(() => returnCodeOf(undefined), /not a NACHA code/);
  });
});
