// The Authorize.net stand-in's eCheck answers as raw JSON, the way the API
// reference shows them ("Debit a Bank Account" answer: accountType eCheck,
// the account masked, no AVS/CVV; getTransactionDetails with
// payment.bankAccount and returnedItems), its bankAccount refusals, and the
// returnItem control verb of the stand-in as a separate process.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type AuthorizeNetStandIn, startAuthorizeNetStandIn } from './authorize-net/stand-in.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers are read as loosely as a client reads JSON.
type Loose = any;

async function post(url: string, body: unknown): Promise<Loose> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return JSON.parse((await response.text()).replace(/^\uFEFF/, ''));
}

describe('Authorize.net stand-in eChecks', () => {
  let nowMs = Date.UTC(2026, 5, 1, 12, 0, 0);
  let standIn: AuthorizeNetStandIn;
  before(async () => {
    standIn = await startAuthorizeNetStandIn({ now: () => nowMs });
  });
  after(() => standIn.close());

  const auth = () => ({ name: standIn.loginId, transactionKey: standIn.transactionKey });
  const debit = (invoiceNumber: string, bankAccount: Record<string, string>) => ({
    createTransactionRequest: {
      merchantAuthentication: auth(),
      refId: invoiceNumber,
      transactionRequest: {
        transactionType: 'authCaptureTransaction',
        amount: '12.34',
        payment: { bankAccount },
        order: { invoiceNumber },
        transactionSettings: { setting: [{ settingName: 'duplicateWindow', settingValue: '28800' }] },
      },
    },
  });
  const ACCOUNT = { accountType: 'checking', routingNumber: '121042882', accountNumber: '123456787001', nameOnAccount: 'John Doe', echeckType: 'WEB' };

  test('a debit answers like the reference: eCheck, the account masked, P and no card code', async () => {
    const answer = await post(standIn.url, debit('inv1', ACCOUNT));
    const transId = answer.transactionResponse.transId;
    assert.match(transId, /^\d+$/);
    assert.deepEqual(answer, {
      transactionResponse: {
        responseCode: '1',
        authCode: '',
        avsResultCode: 'P',
        cvvResultCode: '',
        cavvResultCode: '',
        transId,
        refTransID: '',
        testRequest: '0',
        accountNumber: 'XXXX7001',
        accountType: 'eCheck',
        messages: [{ code: '1', description: 'This transaction has been approved.' }],
      },
      refId: 'inv1',
      messages: { resultCode: 'Ok', message: [{ code: 'I00001', text: 'Successful.' }] },
    });
  });

  test('details show the masked bank account, and the return (after settlement) in returnedItems; the return is a transaction of its own', async () => {
    const transId = (await post(standIn.url, debit('inv2', ACCOUNT))).transactionResponse.transId;
    const details = async (id: string) =>
      (await post(standIn.url, { getTransactionDetailsRequest: { merchantAuthentication: auth(), transId: id } })).transaction;
    assert.deepEqual((await details(transId)).payment, {
      bankAccount: { accountType: 'checking', routingNumber: 'XXXX2882', accountNumber: 'XXXX7001', nameOnAccount: 'John Doe', echeckType: 'WEB' },
    });
    assert.equal((await details(transId)).returnedItems, undefined);
    nowMs += 3_600_000;
    standIn.settle();
    const settled = await details(transId);
    assert.equal(settled.transactionStatus, 'settledSuccessfully');
    assert.equal(settled.batch.settlementTimeUTC, new Date(nowMs).toISOString());
    const batches = await post(standIn.url, { getSettledBatchListRequest: { merchantAuthentication: auth(), includeStatistics: false } });
    assert.ok(batches.batchList.some((batch: Loose) => batch.batchId === settled.batch.batchId && batch.paymentMethod === 'eCheck'));
    nowMs += 86_400_000;
    standIn.settle(); // account ending 7001: returned R01 at the next settlement
    const returned = await details(transId);
    assert.equal(returned.transactionStatus, 'settledSuccessfully');
    assert.equal(returned.returnedItems.length, 1);
    const item = returned.returnedItems[0];
    assert.deepEqual(item, {
      id: item.id,
      dateUTC: new Date(nowMs).toISOString(),
      dateLocal: new Date(nowMs).toISOString().replace('Z', ''),
      code: 'R01',
      description: 'Insufficient Funds',
    });
    const own = await details(item.id);
    assert.deepEqual([own.transactionStatus, own.refTransId], ['returnedItem', transId]);
    assert.throws(() => standIn.returnItem(transId, 'R02'), /returned already/);
  });

  test('bankAccount refusals: enums are schema errors, a bad ABA is reason 9, a short account reason 10, a WEB refund reason 246', async () => {
    const code = async (body: unknown) => {
      const answer = await post(standIn.url, body);
      return answer.transactionResponse?.errors?.[0]?.errorCode ?? answer.messages.message[0].code;
    };
    assert.equal(await code(debit('inv3', { ...ACCOUNT, accountType: 'moneyMarket' })), 'E00003');
    assert.equal(await code(debit('inv4', { ...ACCOUNT, echeckType: 'XYZ' })), 'E00003');
    assert.equal(await code(debit('inv5', { ...ACCOUNT, routingNumber: '121042883' })), '9');
    assert.equal(await code(debit('inv6', { ...ACCOUNT, accountNumber: '123' })), '10');
    assert.equal(await code(debit('inv7', { ...ACCOUNT, accountNumber: '123456789012345678' })), 'E00003');
    const { nameOnAccount: _, ...nameless } = ACCOUNT;
    assert.equal(await code(debit('inv8', nameless)), '33');
    const refund = debit('inv9', ACCOUNT);
    refund.createTransactionRequest.transactionRequest.transactionType = 'refundTransaction';
    assert.equal(await code(refund), '246');
  });

  test('returnItem is a control verb of the stand-in in its own process too', async () => {
    const controlled = await startAuthorizeNetStandIn({ control: true, now: () => nowMs });
    try {
      const transId = (
        await post(controlled.url, {
          ...debit('inv10', ACCOUNT),
          createTransactionRequest: {
            ...debit('inv10', ACCOUNT).createTransactionRequest,
            merchantAuthentication: { name: controlled.loginId, transactionKey: controlled.transactionKey },
          },
        })
      ).transactionResponse.transId;
      const control = (verb: string, body: unknown) =>
        fetch(controlled.url.replace('/xml/v1/request.api', `/control/${verb}`), { method: 'POST', body: JSON.stringify(body) });
      assert.equal((await control('returnItem', { transId, code: 'R10' })).status, 400, 'not settled yet');
      assert.equal((await control('settle', {})).status, 200);
      const made = await control('returnItem', { transId, code: 'R10' });
      assert.equal(made.status, 200);
      const returnId = ((await made.json()) as { transId: string }).transId;
      assert.deepEqual(
        controlled
          .transactions()
          .find((transaction) => transaction.transId === transId)
          ?.returnedItems?.map((item) => [item.id, item.code, item.description]),
        [[returnId, 'R10', 'Customer Advises Not Authorized']],
      );
    } finally {
      await controlled.close();
    }
  });
});
