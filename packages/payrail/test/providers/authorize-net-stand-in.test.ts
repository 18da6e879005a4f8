// The Authorize.net stand-in's own rules that the connector's contract test
// does not reach: wire refusals, field limits, the duplicate window's two
// answers and its expiry, the testing guide's reason-code card, and the
// stand-in as a separate process with its control routes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { anetSignature, type AuthorizeNetStandIn, startAuthorizeNetStandIn, TEST_CARDS } from './authorize-net/stand-in.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers are read as loosely as a client reads JSON.
type Loose = any;

async function post(url: string, body: unknown): Promise<{ readonly text: string; readonly json: Loose }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  // Read as bytes: Response.text() would drop the byte order mark this test looks for.
  const text = Buffer.from(await response.arrayBuffer()).toString('utf8');
  return { text, json: JSON.parse(text.replace(/^\uFEFF/, '')) };
}

describe('Authorize.net stand-in', () => {
  let nowMs = Date.UTC(2026, 5, 1, 12, 0, 0);
  let standIn: AuthorizeNetStandIn;
  before(async () => {
    standIn = await startAuthorizeNetStandIn({ now: () => nowMs });
  });
  after(() => standIn.close());

  const auth = () => ({ name: standIn.loginId, transactionKey: standIn.transactionKey });
  const charge = (invoiceNumber: string, amount: string, settings?: { settingName: string; settingValue: string }[], cardNumber: string = TEST_CARDS.visa) => ({
    createTransactionRequest: {
      merchantAuthentication: auth(),
      refId: invoiceNumber,
      transactionRequest: {
        transactionType: 'authCaptureTransaction',
        amount,
        payment: { creditCard: { cardNumber, expirationDate: '2030-12', cardCode: '999' } },
        order: { invoiceNumber },
        billTo: { zip: '10001' },
        ...(settings ? { transactionSettings: { setting: settings } } : {}),
      },
    },
  });

  test('answers carry the UTF-8 BOM; bad credentials are E00007, unparsable JSON E00003', async () => {
    const ok = await post(standIn.url, { authenticateTestRequest: { merchantAuthentication: auth() } });
    assert.ok(ok.text.startsWith('\uFEFF'));
    assert.deepEqual(ok.json.messages, { resultCode: 'Ok', message: [{ code: 'I00001', text: 'Successful.' }] });
    const wrong = await post(standIn.url, { authenticateTestRequest: { merchantAuthentication: { name: standIn.loginId, transactionKey: 'nope' } } });
    assert.equal(wrong.json.messages.message[0].code, 'E00007');
    assert.equal((await post(standIn.url, '{"createTransactionRequest":')).json.messages.message[0].code, 'E00003');
  });

  test('elements out of schema order, and invoiceNumber or refId over 20 characters, are E00003', async () => {
    const body = charge('order1', '5.00');
    const { amount, transactionType, ...rest } = body.createTransactionRequest.transactionRequest;
    const reordered = { createTransactionRequest: { ...body.createTransactionRequest, transactionRequest: { amount, transactionType, ...rest } } };
    const outOfOrder = await post(standIn.url, reordered);
    assert.equal(outOfOrder.json.messages.message[0].code, 'E00003');
    assert.match(outOfOrder.json.messages.message[0].text, /invalid child element 'transactionType'/);
    assert.equal((await post(standIn.url, charge('x'.repeat(21), '5.00'))).json.messages.message[0].code, 'E00003');
    const longRefId = charge('order2', '5.00');
    longRefId.createTransactionRequest.refId = 'r'.repeat(21);
    assert.equal((await post(standIn.url, longRefId)).json.messages.message[0].code, 'E00003');
    assert.equal(standIn.transactions().length, 0);
  });

  test('a duplicate within the window: reason 11, with the original transaction only when duplicateWindow was sent; after the window, a new one', async () => {
    const first = await post(standIn.url, charge('dup1', '7.00'));
    assert.equal(first.json.transactionResponse.responseCode, '1');
    const bare = await post(standIn.url, charge('dup1', '7.00'));
    assert.equal(bare.json.transactionResponse.responseCode, '3');
    assert.deepEqual(bare.json.transactionResponse.errors, [{ errorCode: '11', errorText: 'A duplicate transaction has been submitted.' }]);
    assert.equal(bare.json.transactionResponse.transId, '0');
    const window = [{ settingName: 'duplicateWindow', settingValue: '600' }];
    const detailed = await post(standIn.url, charge('dup1', '7.00', window));
    assert.equal(detailed.json.transactionResponse.transId, first.json.transactionResponse.transId);
    assert.equal(detailed.json.transactionResponse.authCode, first.json.transactionResponse.authCode);
    assert.equal(detailed.json.messages.message[0].code, 'E00027');
    nowMs += 121_000;
    const afterDefault = await post(standIn.url, charge('dup1', '7.00'));
    assert.notEqual(afterDefault.json.transactionResponse.transId, first.json.transactionResponse.transId, 'the default window is 120 s');
  });

  test("'slow:<ms>' applies the request and answers late", async () => {
    standIn.failNext('slow:80');
    const startedMs = performance.now();
    const late = await post(standIn.url, charge('slow1', '6.00'));
    assert.ok(performance.now() - startedMs >= 75);
    assert.equal(late.json.transactionResponse.responseCode, '1');
    assert.ok(standIn.transactions().some((transaction) => transaction.transId === late.json.transactionResponse.transId));
  });

  test('the guide card 4222222222222 answers the reason code equal to the amount', async () => {
    const avsMismatch = await post(standIn.url, charge('rc27', '27.00', undefined, TEST_CARDS.reasonCodeTrigger));
    assert.equal(avsMismatch.json.transactionResponse.responseCode, '2');
    assert.equal(avsMismatch.json.transactionResponse.errors[0].errorCode, '27');
  });

  test('follow-ups: a capture above the authorization is reason 47, a refund with other last four digits reason 54', async () => {
    const body = charge('cap1', '10.00');
    body.createTransactionRequest.transactionRequest.transactionType = 'authOnlyTransaction';
    const authorized = await post(standIn.url, body);
    const transId = authorized.json.transactionResponse.transId;
    const follow = (transactionRequest: object) => post(standIn.url, { createTransactionRequest: { merchantAuthentication: auth(), transactionRequest } });
    const tooMuch = await follow({ transactionType: 'priorAuthCaptureTransaction', amount: '10.01', refTransId: transId });
    assert.equal(tooMuch.json.transactionResponse.errors[0].errorCode, '47');
    const captured = await follow({ transactionType: 'priorAuthCaptureTransaction', amount: '10.00', refTransId: transId });
    assert.equal(captured.json.transactionResponse.transId, transId, 'a capture answers the authorization transId');
    standIn.settle();
    const otherCard = await follow({
      transactionType: 'refundTransaction',
      amount: '1.00',
      payment: { creditCard: { cardNumber: '0015', expirationDate: 'XXXX' } },
      refTransId: transId,
    });
    assert.equal(otherCard.json.transactionResponse.errors[0].errorCode, '54');
  });

  test('stored-credential fields are schema-checked: an unknown subsequentAuthInformation.reason is E00003', async () => {
    const body = charge('mit1', '3.00') as Loose;
    body.createTransactionRequest.transactionRequest.processingOptions = { isSubsequentAuth: 'true' };
    body.createTransactionRequest.transactionRequest.subsequentAuthInformation = { originalNetworkTransId: '123456789012345', reason: 'because' };
    assert.equal((await post(standIn.url, body)).json.messages.message[0].code, 'E00003');
    body.createTransactionRequest.transactionRequest.subsequentAuthInformation.reason = 'resubmission';
    const accepted = await post(standIn.url, body);
    assert.equal(accepted.json.transactionResponse.responseCode, '1');
    const kept = standIn.transactions().find((transaction) => transaction.transId === accepted.json.transactionResponse.transId);
    assert.deepEqual(kept?.storedCredential?.reason, 'resubmission');
  });
});

test('stand-in-main runs as its own process, prints its keys and obeys POST /control/<verb>; webhooks are signed', async () => {
  const main = fileURLToPath(new URL('./authorize-net/stand-in-main.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', main], { stdio: ['ignore', 'pipe', 'inherit'] });
  const receiver = createServer();
  try {
    const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    const started = JSON.parse(line) as { url: string; controlUrl: string; loginId: string; transactionKey: string; signatureKey: string };
    assert.match(started.url, /^http:\/\/127\.0\.0\.1:\d+\/xml\/v1\/request\.api$/);
    const control = async (verb: string, body: object = {}) => (await post(`${started.controlUrl}${verb}`, body)).json;

    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    const address = receiver.address();
    assert.ok(address !== null && typeof address === 'object');
    const delivered = once(receiver, 'request');
    await control('webhookTo', { url: `http://127.0.0.1:${address.port}/hook` });
    await control('failNext', { mode: 'http-500' });
    const failed = await fetch(started.url, { method: 'POST', body: '{}' });
    assert.equal(failed.status, 500);
    await failed.text();
    const approved = await post(started.url, {
      createTransactionRequest: {
        merchantAuthentication: { name: started.loginId, transactionKey: started.transactionKey },
        transactionRequest: {
          transactionType: 'authOnlyTransaction',
          amount: '4.00',
          payment: { creditCard: { cardNumber: TEST_CARDS.amex, expirationDate: '1230', cardCode: '1234' } },
          order: { invoiceNumber: 'proc1' },
        },
      },
    });
    assert.equal(approved.json.transactionResponse.accountType, 'AmericanExpress');
    const [request, response] = (await delivered) as [import('node:http').IncomingMessage, import('node:http').ServerResponse];
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    response.end();
    const raw = Buffer.concat(chunks);
    assert.equal(request.headers['x-anet-signature'], anetSignature(raw, started.signatureKey));
    assert.match(String(request.headers['x-anet-signature']), /^sha512=[0-9A-F]{128}$/);
    const notification = JSON.parse(raw.toString('utf8'));
    assert.equal(notification.eventType, 'net.authorize.payment.authorization.created');
    assert.deepEqual(
      [notification.payload.entityName, notification.payload.id, notification.payload.invoiceNumber, notification.payload.authAmount],
      ['transaction', approved.json.transactionResponse.transId, 'proc1', 4],
    );
    assert.deepEqual(await control('requestCount'), { count: 2 });
    assert.equal((await control('transactions')).length, 1);
  } finally {
    receiver.close();
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
});
