// The Authorize.net connector's pure parts: request bodies (their element
// order is the schema's), answers in Payrail's terms, the webhook signature
// against a vector computed with openssl, exact amounts; and the transport's
// refusal to guess (a non-2xx answer is an unknown outcome). The contract
// tests against the stand-in (authorize-net-contract.test.ts) cover the calls.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { Secret } from '../../src/domain/secret.ts';
import { centsOfWire } from '../../src/providers/authorize-net/amounts.ts';
import { AuthorizeNetAnswerUnusable, AuthorizeNetUnknownOutcome, assertDefinite, parseAnswer, postApi } from '../../src/providers/authorize-net/client.ts';
import { authorizationRequest, refundRequest, storedCredentialFields } from '../../src/providers/authorize-net/requests.ts';
import { detailsAnswerOf, transactionAnswerOf } from '../../src/providers/authorize-net/responses.ts';
import { settledTransactionOf } from '../../src/providers/authorize-net/settlements.ts';
import { signatureHolds, webhookReceiver } from '../../src/providers/authorize-net/webhooks.ts';

const request = {
  reference: '0k2l3m4nc1',
  currency: 'USD',
  card: { number: new Secret('4111111111111111'), cvv: new Secret('123'), expiryMonth: 3, expiryYear: 2030, cardType: 'Visa' as const },
  billing: { street: '1 Main St', zip: '46282', country: 'US' },
};

describe('authorize-net request bodies', () => {
  it('orders an authorization as the schema does and keys it by the reference', () => {
    const fields = authorizationRequest({ ...request, allowPartialApproval: true }, 1234, 'authCaptureTransaction');
    assert.deepEqual(Object.keys(fields), ['refId', 'transactionRequest']);
    const tr = fields.transactionRequest as Record<string, unknown>;
    assert.deepEqual(Object.keys(tr), ['transactionType', 'amount', 'payment', 'order', 'billTo', 'transactionSettings']);
    assert.equal(fields.refId, '0k2l3m4nc1');
    assert.equal(tr.amount, '12.34');
    assert.deepEqual(tr.payment, { creditCard: { cardNumber: '4111111111111111', expirationDate: '2030-03', cardCode: '123' } });
    assert.deepEqual(tr.order, { invoiceNumber: '0k2l3m4nc1' });
    assert.deepEqual(tr.billTo, { address: '1 Main St', zip: '46282', country: 'US' });
    assert.deepEqual(tr.transactionSettings, {
      setting: [
        { settingName: 'duplicateWindow', settingValue: '28800' },
        { settingName: 'allowPartialAuth', settingValue: 'true' },
      ],
    });
    // Never left to the account's setting: a charge that allows no partial approval says so.
    const whole = authorizationRequest(request, 1234, 'authCaptureTransaction').transactionRequest as Record<string, unknown>;
    assert.deepEqual(whole.transactionSettings, {
      setting: [
        { settingName: 'duplicateWindow', settingValue: '28800' },
        { settingName: 'allowPartialAuth', settingValue: 'false' },
      ],
    });
  });

  it('puts the stored-credential flags last, leaves out an erased card code, and sends another currency', () => {
    const stored = { use: 'subsequent', initiator: 'merchant', reason: 'recurring', networkTransactionId: '123456789012345' } as const;
    const tr = authorizationRequest({ ...request, currency: 'eur', card: { ...request.card, cvv: null }, storedCredential: stored }, 500, 'authOnlyTransaction')
      .transactionRequest as Record<string, unknown>;
    assert.deepEqual(Object.keys(tr), [
      'transactionType',
      'amount',
      'currencyCode',
      'payment',
      'order',
      'billTo',
      'transactionSettings',
      'processingOptions',
      'subsequentAuthInformation',
    ]);
    assert.equal(tr.currencyCode, 'EUR');
    assert.deepEqual(tr.payment, { creditCard: { cardNumber: '4111111111111111', expirationDate: '2030-03' } });
    assert.deepEqual(tr.subsequentAuthInformation, { originalNetworkTransId: '123456789012345' });
  });

  it('maps each stored-credential use to the documented flag', () => {
    const flags = (use: 'initial' | 'subsequent', initiator: 'customer' | 'merchant', reason: 'recurring' | 'unscheduled') =>
      storedCredentialFields({ use, initiator, reason, networkTransactionId: null }).processingOptions;
    assert.deepEqual(flags('initial', 'customer', 'recurring'), { isFirstRecurringPayment: true });
    assert.deepEqual(flags('initial', 'customer', 'unscheduled'), { isFirstSubsequentAuth: true });
    assert.deepEqual(flags('subsequent', 'customer', 'unscheduled'), { isStoredCredentials: true });
    assert.deepEqual(storedCredentialFields({ use: 'subsequent', initiator: 'merchant', reason: 'unscheduled', networkTransactionId: null }), {
      processingOptions: { isSubsequentAuth: true },
    });
    assert.deepEqual(storedCredentialFields(undefined), {});
  });

  it('sends a refund with the last four, XXXX, the charge and its own invoice number, in schema order', () => {
    const tr = refundRequest({ reference: '0k2l3m4nc9', chargeProcessorRef: '60020981676', amountCents: 500, currency: 'USD', cardLastFour: '1111' })
      .transactionRequest as Record<string, unknown>;
    assert.deepEqual(Object.keys(tr), ['transactionType', 'amount', 'payment', 'refTransId', 'order', 'transactionSettings']);
    assert.deepEqual(tr.payment, { creditCard: { cardNumber: '1111', expirationDate: 'XXXX' } });
    assert.deepEqual(tr.order, { invoiceNumber: '0k2l3m4nc9' });
  });
});

describe('authorize-net answers', () => {
  // Answers render lists as arrays ("errors": [...]); the wrapped form ({"error": ...}) is read too.
  const error = (errorCode: string) => (errorCode === '2' ? { errors: { error: { errorCode, errorText: 'x' } } } : { errors: [{ errorCode, errorText: 'x' }] });

  it('maps response codes 1/2/3/4 and the reason codes to outcomes and decline codes', () => {
    const approved = transactionAnswerOf(
      {
        responseCode: '1',
        authCode: 'LZ6I19',
        avsResultCode: 'W',
        cvvResultCode: 'M',
        transId: '6002',
        networkTransId: 'NT1',
        messages: { message: [{ code: '1' }] },
      },
      1000,
    );
    assert.deepEqual(approved, {
      outcome: 'approved',
      reason: '1',
      transId: '6002',
      authCode: 'LZ6I19',
      avsResultCode: 'Z',
      cvvResultCode: 'M',
      decline: null,
      networkTransactionId: 'NT1',
    });
    const cases: [string, string, string, string | null][] = [
      ['2', '2', 'declined', 'card_declined'],
      ['2', '27', 'declined', 'card_declined'],
      ['2', '65', 'declined', 'card_declined'],
      ['3', '8', 'declined', 'invalid_card'],
      ['3', '6', 'declined', 'invalid_card'],
      ['3', '19', 'failed', 'processor_error'],
      ['4', '252', 'pending', null],
    ];
    for (const [responseCode, reason, outcome, decline] of cases) {
      const answer = transactionAnswerOf({ responseCode, transId: '7', ...error(reason) }, 1000);
      assert.deepEqual([answer.outcome, answer.decline, answer.reason], [outcome, decline, reason], `${responseCode}/${reason}`);
    }
  });

  it('reads a partial approval (4, reason 295) as an approval of the approved cents', () => {
    const answer = transactionAnswerOf(
      {
        responseCode: '4',
        transId: '8',
        authCode: 'A1',
        messages: { message: [{ code: '295' }] },
        prePaidCard: { requestedAmount: '10.00', approvedAmount: '4.05' },
        splitTenderId: '115901',
      },
      1000,
    );
    assert.equal(answer.outcome, 'approved');
    assert.equal(answer.authorizedCents, 405);
    assert.equal(answer.splitTenderId, '115901', 'the group to release');
  });

  it('reads a partial approval without its approvedAmount or splitTenderId as an unknown outcome, never a full approval', () => {
    const partial = { responseCode: '4', transId: '8', authCode: 'A1', messages: { message: [{ code: '295' }] } };
    assert.throws(() => transactionAnswerOf({ ...partial, splitTenderId: '115901' }, 1000), AuthorizeNetAnswerUnusable);
    assert.throws(() => transactionAnswerOf({ ...partial, prePaidCard: { approvedAmount: '4.05' } }, 1000), AuthorizeNetAnswerUnusable);
  });

  it('marks answers that are unusable but answered as not counting against the breaker', () => {
    assert.throws(
      () => detailsAnswerOf({ transId: '9', transactionStatus: 'couldNotVoid' }),
      (error: Error) => {
        assert.ok(error instanceof AuthorizeNetAnswerUnusable);
        assert.ok(error instanceof AuthorizeNetUnknownOutcome, 'still an unknown outcome for Payrail');
        assert.equal((error as AuthorizeNetAnswerUnusable).countsAgainstBreaker, false);
        return true;
      },
    );
    assert.throws(() => transactionAnswerOf({ responseCode: '5', transId: '7' }, 1000), AuthorizeNetAnswerUnusable);
  });

  it('maps transaction statuses of getTransactionDetails', () => {
    const outcome = (transactionStatus: string) => detailsAnswerOf({ transId: '9', transactionStatus, responseReasonCode: 2 }).outcome;
    assert.equal(outcome('FDSPendingReview'), 'pending');
    assert.equal(outcome('FDSAuthorizedPendingReview'), 'pending');
    assert.equal(outcome('authorizedPendingCapture'), 'approved');
    assert.equal(outcome('settledSuccessfully'), 'approved');
    assert.equal(outcome('failedReview'), 'declined');
    assert.equal(outcome('voided'), 'declined');
    assert.equal(outcome('generalError'), 'failed');
    assert.throws(() => outcome('somethingNew'));
  });

  it('reads amounts exactly, from decimal text and JSON numbers, and refuses anything else', () => {
    assert.equal(centsOfWire('10.50', 'a'), 1050);
    assert.equal(centsOfWire(1234.56, 'a'), 123456);
    assert.equal(centsOfWire(0.29, 'a'), 29);
    assert.equal(centsOfWire('0.00', 'a'), 0);
    for (const bad of ['1e3', '-1.00', '1.234', '', undefined]) assert.throws(() => centsOfWire(bad, 'a'), String(bad));
  });

  it('reads settled rows: charges, refunds, and nothing for rows that moved no money', () => {
    assert.deepEqual(settledTransactionOf({ transId: '1', transactionStatus: 'settledSuccessfully', invoiceNumber: 'k1', settleAmount: 45.1 }), {
      processorRef: '1',
      reference: 'k1',
      kind: 'charge',
      amountCents: 4510,
      status: 'settledSuccessfully',
    });
    assert.equal(settledTransactionOf({ transId: '2', transactionStatus: 'refundSettledSuccessfully', settleAmount: '5.00' })?.kind, 'refund');
    assert.equal(settledTransactionOf({ transId: '3', transactionStatus: 'voided', settleAmount: '0.00' }), null);
  });
});

describe('authorize-net webhooks', () => {
  const key = 'C0FFEE1234567890ABCDEF1234567890ABCDEF1234567890ABCDEF1234567890ABCDEF1234567890ABCDEF1234567890ABCDEF1234567890ABCDEF12345678';
  const body = Buffer.from(
    '{"notificationId":"d0e8e7fe-c3e7-4add-a480-27bc5ce28a4a","eventType":"net.authorize.payment.authcapture.created","eventDate":"2026-11-27T23:00:00.0Z","webhookId":"63d6fea2-aa13-4b1d-a204-f5fbc15942b7","payload":{"responseCode":1,"authCode":"LZ6I19","avsResponse":"Y","authAmount":45.00,"entityName":"transaction","id":"60020981676","invoiceNumber":"0k2l3m4nc1"}}',
  );
  // openssl dgst -sha512 -hmac "$key" body.json
  const vector = 'f777c7b5a98acd15f7a69c16beab0155e692b70a549ea0f2a549479c6033c7bcf530f9e2092cdd91f253423ed4309a69cda036cf4eba96939f0287354904e341';

  it('checks X-ANET-Signature in either case and refuses anything else', () => {
    assert.equal(signatureHolds(key, body, `sha512=${vector.toUpperCase()}`), true);
    assert.equal(signatureHolds(key, body, `SHA512=${vector}`), true);
    assert.equal(signatureHolds(key, Buffer.concat([body, Buffer.from(' ')]), `sha512=${vector}`), false);
    assert.equal(signatureHolds(key, body, vector), false);
    assert.equal(signatureHolds(key, body, `sha512=${vector.slice(2)}`), false);
    assert.equal(signatureHolds(key, body, undefined), false);
  });

  it('answers payment events as card hints, other events with none, and refuses without a key', async () => {
    const receiver = webhookReceiver(new Secret(key));
    assert.deepEqual(await receiver.verify({ rawBody: body, headers: { 'x-anet-signature': `sha512=${vector.toUpperCase()}` } }), {
      accepted: true,
      hints: [{ kind: 'card', processorRef: '60020981676', reference: '0k2l3m4nc1' }],
    });
    const ping = Buffer.from('{"eventType":"net.authorize.customer.created","payload":{"id":"1"}}');
    const signature = `sha512=${crypto.createHmac('sha512', key).update(ping).digest('hex')}`;
    assert.deepEqual(await receiver.verify({ rawBody: ping, headers: { 'x-anet-signature': signature } }), { accepted: true, hints: [] });
    assert.equal((await receiver.verify({ rawBody: body, headers: {} })).accepted, false);
    assert.equal((await webhookReceiver(null).verify({ rawBody: body, headers: { 'x-anet-signature': `sha512=${vector}` } })).accepted, false);
  });
});

describe('authorize-net transport', () => {
  it('treats refused credentials, gateway errors and unknown codes as unknown, only a request refused as written as definite', () => {
    const answer = (code: string) => ({ messages: { resultCode: 'Error', message: [{ code, text: 'x' }] } });
    for (const code of ['E00001', 'E00007', 'E00008', 'E00011', 'E00104', 'E00053', 'E00027', 'E99999'])
      assert.throws(() => assertDefinite(answer(code), 'r'), AuthorizeNetUnknownOutcome, code);
    for (const code of ['E00003', 'E00013', 'E00014', 'E00015', 'E00016']) assert.doesNotThrow(() => assertDefinite(answer(code), 'r'), code);
    // Only an unavailable gateway or refused credentials count against the breaker; a code Payrail does not know does not.
    const counts = (code: string) => {
      try {
        assertDefinite(answer(code), 'r');
      } catch (error) {
        return !(error instanceof AuthorizeNetAnswerUnusable);
      }
      return null;
    };
    assert.deepEqual(['E00001', 'E00053', 'E00104', 'E00007', 'E99999', 'E00027'].map(counts), [true, true, true, true, false, false]);
    assert.throws(() => assertDefinite({}, 'r'), AuthorizeNetUnknownOutcome);
  });

  it('strips the byte order mark, and treats a non-2xx answer as an unknown outcome without naming the key', async () => {
    assert.deepEqual(parseAnswer('\uFEFF{"messages":{"resultCode":"Ok"}}', 'r'), { messages: { resultCode: 'Ok' } });
    assert.throws(() => parseAnswer('<html>', 'r'), AuthorizeNetUnknownOutcome);
    const server = http.createServer((_req, res) => res.writeHead(500).end('{}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/xml/v1/request.api`;
      const settings = { url, loginId: 'login', transactionKey: new Secret('SECRETKEY123'), signatureKey: null };
      await assert.rejects(postApi(settings, 'createTransactionRequest', {}, AbortSignal.timeout(5000)), (error: Error) => {
        assert.ok(error instanceof AuthorizeNetUnknownOutcome);
        assert.ok(!error.message.includes('SECRETKEY123'));
        return true;
      });
    } finally {
      server.close();
    }
  });
});
