// The CardProcessor contract (src/providers/card-processor.ts) checked on the
// Authorize.net connector, against the stand-in (test/providers/authorize-net/)
// always, and against Authorize.net's sandbox when
// PAYRAIL_AUTHORIZE_NET_TEST_LOGIN_ID and PAYRAIL_AUTHORIZE_NET_TEST_TRANSACTION_KEY
// are set (the cases that need no control of the processor: the sandbox
// cannot be made to hang, settle or hold on demand). Nothing leaves loopback
// otherwise.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { Secret } from '../../src/domain/secret.ts';
import type { ProviderCallback } from '../../src/providers/callbacks.ts';
import {
  type AuthorizationRequest,
  authorizeWithDeadline,
  type CardProcessor,
  captureWithDeadline,
  creditWithDeadline,
  pollWithDeadline,
  refundWithDeadline,
  verifyWithDeadline,
  voidWithDeadline,
} from '../../src/providers/card-processor.ts';
import { createAuthorizeNet } from '../../src/providers/authorize-net/index.ts';
import {
  type AuthorizeNetStandIn,
  DECLINE_ZIP,
  HELD_ZIP,
  PARTIAL_APPROVED_CENTS,
  PARTIAL_ZIP,
  startAuthorizeNetStandIn,
  TEST_CARDS,
} from './authorize-net/stand-in.ts';

const log = pino({ level: 'silent' });
const SANDBOX_URL = 'https://apitest.authorize.net/xml/v1/request.api';
const CALL_TIMEOUT_MS = 400;

/** A fresh provider key: at most 20 characters of [0-9a-z], unique across runs (the sandbox keeps 8 hours of duplicates). */
function reference(): string {
  return `t${Date.now().toString(36)}${randomBytes(4).toString('hex')}`.slice(0, 20);
}

function authorization(
  overrides: Partial<Omit<AuthorizationRequest, 'signal'>> & { zip?: string; cvv?: string; number?: string } = {},
): Omit<AuthorizationRequest, 'signal'> {
  const { zip = '10001', cvv = '123', number = TEST_CARDS.visa, ...rest } = overrides;
  return {
    reference: reference(),
    // Amounts vary per call so the sandbox's duplicate check never joins two test cases.
    amountCents: 1000 + Math.floor(Math.random() * 9000),
    currency: 'USD',
    card: { number: new Secret(number), cvv: new Secret(cvv), expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 3, cardType: 'Visa' },
    billing: { street: '1 Main St', zip, country: 'US' },
    capture: false,
    ...rest,
  };
}

interface Target {
  readonly processor: CardProcessor;
  /** Null against the real sandbox. */
  readonly standIn: AuthorizeNetStandIn | null;
}

/** The cases that hold against any Authorize.net: the stand-in and the sandbox. */
function sharedCases(target: () => Target): void {
  test('an approved authorization carries its transId, auth code, AVS and CVV results and a network id', async () => {
    const { processor, standIn } = target();
    const request = authorization();
    const result = await authorizeWithDeadline(processor, request);
    assert.equal(result.outcome, 'approved');
    assert.match(result.processorRef, /^\d+$/);
    assert.notEqual(result.authCode, '');
    assert.equal(result.decline, null);
    assert.equal(result.avsResultCode, 'Y');
    assert.equal(result.cvvResultCode, 'M');
    if (standIn) {
      assert.ok(result.networkTransactionId, 'the stand-in answers a networkTransId');
      const kept = standIn.transactions().find((transaction) => transaction.transId === result.processorRef);
      assert.equal(kept?.status, 'authorizedPendingCapture');
      assert.equal(kept?.invoiceNumber, request.reference, 'the reference travels as invoiceNumber');
    }
  });

  test('the testing guide decline ZIP is a decline, not a failure', async () => {
    const result = await authorizeWithDeadline(target().processor, authorization({ zip: DECLINE_ZIP }));
    assert.equal(result.outcome, 'declined');
    assert.equal(result.decline, 'card_declined');
    assert.equal(result.authCode, '');
  });

  test('an expired card is declined as invalid_card', async () => {
    const request = authorization();
    const result = await authorizeWithDeadline(target().processor, { ...request, card: { ...request.card, expiryYear: 2020, expiryMonth: 1 } });
    assert.equal(result.outcome, 'declined');
    assert.equal(result.decline, 'invalid_card');
  });

  test('a processing error (reason 19 by the guide card 4222222222222) is failed: no money moved', async () => {
    const result = await authorizeWithDeadline(target().processor, authorization({ number: TEST_CARDS.reasonCodeTrigger, amountCents: 1900 }));
    assert.equal(result.outcome, 'failed');
    assert.equal(result.decline, 'processor_error');
  });

  test('AVS and CVV results of the guide ZIPs and card codes pass through', async () => {
    const { processor } = target();
    const noMatch = await authorizeWithDeadline(processor, authorization({ zip: '46205', cvv: '901' }));
    assert.equal(noMatch.avsResultCode, 'N');
    assert.equal(noMatch.cvvResultCode, 'N');
    const zipOnly = await authorizeWithDeadline(processor, authorization({ zip: '46217', cvv: '904' }));
    assert.equal(zipOnly.avsResultCode, 'Z');
    assert.equal(zipOnly.cvvResultCode, 'P');
  });

  test('a partial capture takes less than authorized, once, however often it is asked', async () => {
    const { processor, standIn } = target();
    const request = authorization({ amountCents: 5000 + Math.floor(Math.random() * 1000) });
    const auth = await authorizeWithDeadline(processor, request);
    assert.equal(auth.outcome, 'approved');
    const first = await captureWithDeadline(processor, { reference: request.reference, processorRef: auth.processorRef, amountCents: 3000 });
    assert.equal(first.outcome, 'approved');
    const again = await captureWithDeadline(processor, { reference: request.reference, processorRef: auth.processorRef, amountCents: 3000 });
    assert.equal(again.outcome, 'approved', 'a capture asked again reports the first');
    if (standIn) {
      const kept = standIn.transactions().find((transaction) => transaction.transId === auth.processorRef);
      assert.equal(kept?.status, 'capturedPendingSettlement');
      assert.equal(kept?.settleAmountCents, 3000);
    }
  });

  test('a void releases an authorization, and a void asked again reports the first', async () => {
    const { processor, standIn } = target();
    const request = authorization();
    const auth = await authorizeWithDeadline(processor, request);
    const first = await voidWithDeadline(processor, { reference: request.reference, processorRef: auth.processorRef });
    assert.equal(first.outcome, 'approved');
    const again = await voidWithDeadline(processor, { reference: request.reference, processorRef: auth.processorRef });
    assert.equal(again.outcome, 'approved');
    if (standIn) assert.equal(standIn.transactions().find((transaction) => transaction.transId === auth.processorRef)?.status, 'voided');
  });

  test('a refund before settlement is refused (reason 54) and moves nothing', async () => {
    const { processor, standIn } = target();
    const request = authorization({ capture: true });
    const charge = await authorizeWithDeadline(processor, request);
    assert.equal(charge.outcome, 'approved');
    const refund = await refundWithDeadline(processor, {
      reference: reference(),
      chargeReference: request.reference,
      chargeProcessorRef: charge.processorRef,
      amountCents: 500,
      currency: 'USD',
      cardLastFour: '1111',
    });
    assert.notEqual(refund.outcome, 'approved');
    assert.notEqual(refund.decline, null);
    if (standIn) assert.equal(standIn.transactions().filter((transaction) => transaction.refTransId === charge.processorRef).length, 0);
  });

  test('a verification is a zero-amount check with AVS and CVV results', async () => {
    const { processor, standIn } = target();
    const { amountCents: _unused, ...request } = authorization({ zip: '46201' });
    const result = await verifyWithDeadline(processor, request);
    assert.equal(result.outcome, 'approved');
    assert.equal(result.avsResultCode, 'A');
    assert.equal(result.cvvResultCode, 'M');
    if (standIn) {
      const kept = standIn.transactions().filter((transaction) => transaction.invoiceNumber === request.reference);
      assert.ok(kept.length >= 1);
      assert.ok(
        kept.every((transaction) => transaction.authAmountCents <= 1),
        'a verification holds no money',
      );
    }
  });

  test('an authorization asked again with the same reference reports the first transaction', async () => {
    const { processor, standIn } = target();
    const request = authorization();
    const first = await authorizeWithDeadline(processor, request);
    const again = await authorizeWithDeadline(processor, request);
    assert.equal(again.outcome, first.outcome);
    assert.equal(again.processorRef, first.processorRef);
    assert.equal(again.authCode, first.authCode);
    if (standIn) assert.equal(standIn.transactions().filter((transaction) => transaction.invoiceNumber === request.reference).length, 1);
  });
}

/** The cases that need the stand-in's control: failures on the line, holds, settlement, webhooks. */
function standInCases(target: () => Target & { readonly standIn: AuthorizeNetStandIn }, receiver: () => WebhookReceiver): void {
  test('after a drop once the processor committed, the same reference gets the same transaction, kept once', async () => {
    const { processor, standIn } = target();
    const request = authorization();
    standIn.failNext('drop-after-commit');
    await assert.rejects(authorizeWithDeadline(processor, request), 'a dropped answer is an unknown outcome');
    const kept = standIn.transactions().filter((transaction) => transaction.invoiceNumber === request.reference);
    assert.equal(kept.length, 1, 'the stand-in applied the first request');
    const again = await authorizeWithDeadline(processor, request);
    assert.equal(again.outcome, 'approved');
    assert.equal(again.processorRef, kept[0]?.transId);
    assert.equal(again.authCode, kept[0]?.authCode);
    assert.equal(standIn.transactions().filter((transaction) => transaction.invoiceNumber === request.reference).length, 1);
  });

  test('a hung processor: the call rejects at the deadline', async () => {
    const { processor, standIn } = target();
    standIn.failNext('hang');
    const startedMs = performance.now();
    await assert.rejects(authorizeWithDeadline(processor, authorization()));
    const elapsedMs = performance.now() - startedMs;
    assert.ok(elapsedMs >= CALL_TIMEOUT_MS - 50 && elapsedMs < CALL_TIMEOUT_MS + 1000, `rejected after ${elapsedMs} ms`);
  });

  test('an HTTP 500 is an unknown outcome (a rejection), never failed', async () => {
    const { processor, standIn } = target();
    standIn.failNext('http-500');
    await assert.rejects(authorizeWithDeadline(processor, authorization()));
    const request = authorization({ capture: true });
    const charge = await authorizeWithDeadline(processor, request);
    standIn.failNext('http-500');
    await assert.rejects(voidWithDeadline(processor, { reference: request.reference, processorRef: charge.processorRef }));
  });

  test('a transaction held for review is pending until the review approves or declines it', async () => {
    const { processor, standIn } = target();
    const approvedLater = authorization({ zip: HELD_ZIP });
    const held = await authorizeWithDeadline(processor, approvedLater);
    assert.equal(held.outcome, 'pending');
    assert.ok(held.retryAfterMs > 0);
    assert.equal((await pollWithDeadline(processor, { reference: approvedLater.reference, processorRef: held.processorRef })).outcome, 'pending');
    standIn.resolveHeld(held.processorRef, 'approve');
    const approved = await pollWithDeadline(processor, { reference: approvedLater.reference, processorRef: held.processorRef });
    assert.equal(approved.outcome, 'approved');
    assert.notEqual(approved.authCode, '');

    const declinedLater = authorization({ zip: HELD_ZIP });
    const heldAgain = await authorizeWithDeadline(processor, declinedLater);
    standIn.resolveHeld(heldAgain.processorRef, 'decline');
    const declined = await pollWithDeadline(processor, { reference: declinedLater.reference, processorRef: heldAgain.processorRef });
    assert.equal(declined.outcome, 'declined');
    assert.notEqual(declined.decline, null);
  });

  test('a refund after settlement names the last four, once per reference, never more than settled; settlements read back', async () => {
    const { processor, standIn } = target();
    const request = authorization({ capture: true, amountCents: 2500 });
    const charge = await authorizeWithDeadline(processor, request);
    const firstBatch = standIn.settle();
    const refundRequest = {
      reference: reference(),
      chargeReference: request.reference,
      chargeProcessorRef: charge.processorRef,
      amountCents: 1000,
      currency: 'USD',
      cardLastFour: '1111',
    };
    const refund = await refundWithDeadline(processor, refundRequest);
    assert.equal(refund.outcome, 'approved');
    const again = await refundWithDeadline(processor, refundRequest);
    assert.equal(again.outcome, 'approved');
    assert.equal(again.processorRef, refund.processorRef, 'a refund asked again reports the first');
    const refunds = standIn.transactions().filter((transaction) => transaction.refTransId === charge.processorRef);
    assert.equal(refunds.length, 1);
    assert.equal(refunds[0]?.status, 'refundPendingSettlement');
    const tooMuch = await refundWithDeadline(processor, { ...refundRequest, reference: reference(), amountCents: 1600 });
    assert.notEqual(tooMuch.outcome, 'approved', 'reason 55: more than settled');
    const secondBatch = standIn.settle();

    assert.ok(processor.settlements, 'the connector reads settlements');
    const nowMs = Date.now();
    const batches = await processor.settlements.settledBatches({ fromMs: nowMs - 3_600_000, toMs: nowMs + 60_000, signal: AbortSignal.timeout(5000) });
    const chargeBatch = batches.find((batch) => batch.batchId === firstBatch);
    const settledCharge = chargeBatch?.transactions.find((transaction) => transaction.processorRef === charge.processorRef);
    assert.deepEqual(settledCharge && { kind: settledCharge.kind, amountCents: settledCharge.amountCents, reference: settledCharge.reference }, {
      kind: 'charge',
      amountCents: 2500,
      reference: request.reference,
    });
    const settledRefund = batches
      .find((batch) => batch.batchId === secondBatch)
      ?.transactions.find((transaction) => transaction.processorRef === refund.processorRef);
    assert.equal(settledRefund?.kind, 'refund');
    assert.equal(settledRefund?.amountCents, 1000);
    assert.equal(settledRefund?.status, 'refundSettledSuccessfully');
  });

  test('a partial approval (guide ZIP 46225, allowPartialAuth) approves $1.23 and releases its split tender group', async () => {
    const { processor, standIn } = target();
    const result = await authorizeWithDeadline(processor, authorization({ zip: PARTIAL_ZIP, amountCents: 5000, allowPartialApproval: true }));
    assert.equal(result.outcome, 'approved');
    assert.equal(result.authorizedCents, PARTIAL_APPROVED_CENTS);
    const kept = standIn.transactions().find((transaction) => transaction.transId === result.processorRef);
    assert.equal(kept?.status, 'authorizedPendingCapture', 'updateSplitTenderGroupRequest completed the group');
    const refused = await authorizeWithDeadline(processor, authorization({ zip: PARTIAL_ZIP, amountCents: 5000 }));
    assert.equal(refused.outcome, 'declined', 'without allowPartialAuth the partial answer is a decline');
  });

  test('a partial approval whose release goes unanswered is an unknown outcome; polling or asking again releases it', async () => {
    const { processor, standIn } = target();
    const request = authorization({ zip: PARTIAL_ZIP, amountCents: 5000, allowPartialApproval: true });
    // The createTransaction is answered (slow:0), the updateSplitTenderGroup is not.
    standIn.failNext('slow:0');
    standIn.failNext('http-500');
    await assert.rejects(authorizeWithDeadline(processor, request), 'not recorded approved while the group is held');
    const held = standIn.transactions().find((transaction) => transaction.invoiceNumber === request.reference);
    assert.equal(held?.status, 'authorizedPendingRelease');
    const polled = await pollWithDeadline(processor, { reference: request.reference, processorRef: held?.transId ?? '' });
    assert.equal(polled.outcome, 'approved');
    assert.equal(polled.authorizedCents, PARTIAL_APPROVED_CENTS);
    assert.equal(standIn.transactions().find((transaction) => transaction.transId === held?.transId)?.status, 'authorizedPendingCapture');
    const again = await authorizeWithDeadline(processor, request);
    assert.deepEqual([again.outcome, again.processorRef, again.authorizedCents], ['approved', held?.transId, PARTIAL_APPROVED_CENTS]);
  });

  test('a re-asked partial approval releases the group a failed release left held', async () => {
    const { processor, standIn } = target();
    const request = authorization({ zip: PARTIAL_ZIP, amountCents: 5000, allowPartialApproval: true });
    standIn.failNext('slow:0');
    standIn.failNext('http-500');
    await assert.rejects(authorizeWithDeadline(processor, request));
    const again = await authorizeWithDeadline(processor, request);
    assert.deepEqual([again.outcome, again.authorizedCents], ['approved', PARTIAL_APPROVED_CENTS]);
    assert.equal(standIn.transactions().find((transaction) => transaction.transId === again.processorRef)?.status, 'authorizedPendingCapture');
  });

  test("a poll under another charge's transaction id records nothing", async () => {
    const { processor } = target();
    const other = await authorizeWithDeadline(processor, authorization());
    assert.equal(other.outcome, 'approved');
    await assert.rejects(pollWithDeadline(processor, { reference: reference(), processorRef: other.processorRef }), /another invoice number/);
  });

  test('an unlinked credit moves money to a card no charge names', async () => {
    const { processor, standIn } = target();
    const ref = reference();
    const result = await creditWithDeadline(processor, {
      reference: ref,
      amountCents: 700,
      currency: 'USD',
      card: { number: new Secret(TEST_CARDS.mastercard), expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 2, cardType: 'MasterCard' },
    });
    assert.equal(result.outcome, 'approved');
    const kept = standIn.transactions().find((transaction) => transaction.transId === result.processorRef);
    assert.deepEqual(kept && [kept.type, kept.refTransId, kept.authAmountCents, kept.invoiceNumber], ['refundTransaction', null, 700, ref]);
  });

  test('stored-credential flags reach the processor', async () => {
    const { processor, standIn } = target();
    const first = authorization({ storedCredential: { use: 'initial', initiator: 'customer', reason: 'unscheduled', networkTransactionId: null } });
    const initial = await authorizeWithDeadline(processor, first);
    assert.ok(initial.networkTransactionId);
    const later = authorization({
      storedCredential: { use: 'subsequent', initiator: 'merchant', reason: 'recurring', networkTransactionId: initial.networkTransactionId },
    });
    const subsequent = await authorizeWithDeadline(processor, later);
    assert.equal(subsequent.outcome, 'approved');
    const kept = standIn.transactions().find((transaction) => transaction.transId === subsequent.processorRef);
    assert.equal(kept?.storedCredential?.isSubsequentAuth, true);
    assert.equal(kept?.storedCredential?.originalNetworkTransId, initial.networkTransactionId);
  });

  test('webhooks: a signed notification is accepted (and again when replayed), a forged one refused', async () => {
    const { processor, standIn } = target();
    assert.ok(processor.callbacks);
    const request = authorization({ capture: true });
    const arrived = receiver().next((body) => body.includes(request.reference));
    const charge = await authorizeWithDeadline(processor, request);
    const callback = await arrived;
    const body = JSON.parse(callback.rawBody.toString('utf8')) as { eventType: string };
    assert.equal(body.eventType, 'net.authorize.payment.authcapture.created');
    const verdict = await processor.callbacks.verify(callback);
    assert.deepEqual(verdict, { accepted: true, hints: [{ kind: 'card', processorRef: charge.processorRef, reference: request.reference }] });
    assert.deepEqual(await processor.callbacks.verify(callback), verdict, 'a replay verifies the same: the callback flow makes it harmless');
    const forged = Buffer.from(callback.rawBody.toString('utf8').replace(charge.processorRef, '1'));
    assert.equal((await processor.callbacks.verify({ ...callback, rawBody: forged })).accepted, false);
    assert.equal((await processor.callbacks.verify({ rawBody: callback.rawBody, headers: {} })).accepted, false);
    const otherKey = createAuthorizeNet(
      { url: standIn.url, loginId: standIn.loginId, transactionKey: new Secret(standIn.transactionKey), signatureKey: new Secret('00'.repeat(64)) },
      { log },
    );
    assert.equal((await otherKey.callbacks?.verify(callback))?.accepted, false);
  });

  test('wrong credentials are an unknown outcome, not a decline', async () => {
    const { standIn } = target();
    const wrong = createAuthorizeNet(
      { url: standIn.url, loginId: standIn.loginId, transactionKey: new Secret('wrongwrongwrong1'), signatureKey: null },
      { log },
    );
    await assert.rejects(authorizeWithDeadline(wrong, authorization()));
  });
}

interface WebhookReceiver {
  readonly url: string;
  next(match: (body: string) => boolean): Promise<ProviderCallback>;
  close(): Promise<void>;
}

/** A loopback receiver of the stand-in's webhooks; `next` resolves with the first notification that matches. */
async function webhookReceiver(): Promise<WebhookReceiver> {
  const waiting: { match: (body: string) => boolean; resolve: (callback: ProviderCallback) => void }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      response.end();
      const rawBody = Buffer.concat(chunks);
      const headers = headersOf(request.headers);
      const index = waiting.findIndex((entry) => entry.match(rawBody.toString('utf8')));
      if (index >= 0) waiting.splice(index, 1)[0]?.resolve({ rawBody, headers });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  return {
    url: `http://127.0.0.1:${address.port}/callbacks`,
    next: (match) => new Promise((resolve) => waiting.push({ match, resolve })),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function headersOf(headers: IncomingHttpHeaders): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]));
}

describe('Authorize.net connector against the stand-in', () => {
  let standIn: AuthorizeNetStandIn;
  let processor: CardProcessor;
  let receiver: WebhookReceiver;
  before(async () => {
    standIn = await startAuthorizeNetStandIn();
    receiver = await webhookReceiver();
    standIn.webhookTo(receiver.url);
    processor = createAuthorizeNet(
      {
        url: standIn.url,
        loginId: standIn.loginId,
        transactionKey: new Secret(standIn.transactionKey),
        signatureKey: new Secret(standIn.signatureKey),
        callTimeoutMs: CALL_TIMEOUT_MS,
      },
      { log },
    );
  });
  after(async () => {
    await standIn.close();
    await receiver.close();
  });
  const target = () => ({ processor, standIn });
  sharedCases(target);
  standInCases(target, () => receiver);
});

const sandboxLogin = process.env.PAYRAIL_AUTHORIZE_NET_TEST_LOGIN_ID;
const sandboxKey = process.env.PAYRAIL_AUTHORIZE_NET_TEST_TRANSACTION_KEY;
if (sandboxLogin && sandboxKey) {
  describe("Authorize.net connector against Authorize.net's sandbox", () => {
    const processor = createAuthorizeNet({ url: SANDBOX_URL, loginId: sandboxLogin, transactionKey: new Secret(sandboxKey), signatureKey: null }, { log });
    sharedCases(() => ({ processor, standIn: null }));
  });
} else {
  test("Authorize.net connector against Authorize.net's sandbox", (t) => {
    t.skip(
      'set PAYRAIL_AUTHORIZE_NET_TEST_LOGIN_ID and PAYRAIL_AUTHORIZE_NET_TEST_TRANSACTION_KEY (a sandbox account) to run the contract against the sandbox',
    );
  });
}
