// POST /providers/:connector/callbacks (behaviour.md section 18), through a
// connector module that takes signed callbacks and holds a charge in review
// until the test releases it (test/helpers/callback-card-processor.ts). A
// verified callback moves the charge it names by a poll and the guarded
// store command, as the worker would; a bad signature, a replay, an unknown
// connector and an oversize body change nothing; the body is never logged.
// Last, the card processor's circuit breaker: once open, a charge answers 503
// and writes nothing, and the worker leaves the charges it could not ask
// about pending. Both stores.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { merchantAccount } from '../../src/domain/ledger.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { recoveryDepsOf, resolveDueCharges } from '../../src/flows/payin/charge-recovery.ts';
import { CALLBACK_BODY_MAX_BYTES } from '../../src/providers/callbacks.ts';
import { breakerOf } from '../../src/providers/connector-breakers.ts';
import { getAccount } from '../../src/store/ledger.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import {
  BREAKER_FAILURES_MAX,
  CALLBACK_CONNECTOR_NAME,
  calls,
  failing,
  releasedReviews,
  resetCallbackProcessor,
  SIGNATURE_HEADER,
  signatureOf,
} from '../helpers/callback-card-processor.ts';
import { basicOf, chargeBody, chargeCard, countCharges, nonceFor, postCharge, shapeC } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { assertLedgerOk } from '../helpers/transfers.ts';

const CONNECTOR = path.join(import.meta.dirname, '..', 'helpers', 'callback-card-processor.ts');
const REVIEW_CARD = '4000000000000259';
/** Text in every callback body: no log line may carry it. */
const BODY_MARKER = 'callback-body-marker-7d1f';

for (const kind of STORE_KINDS) {
  describe(`provider callbacks (${kind})`, () => {
    let t: TestApp;
    let merchant: CreatedMerchant;

    before(async () => {
      t = await createTestApp(kind, { env: { PAYRAIL_CARD_PROCESSOR: CONNECTOR } });
      merchant = await t.newMerchant();
    });
    beforeEach(() => resetCallbackProcessor());
    after(() => t.close());

    const send = (body: string | Buffer, options: { signature?: string; connector?: string; contentType?: string } = {}) =>
      t.app.inject({
        method: 'POST',
        url: `/providers/${options.connector ?? CALLBACK_CONNECTOR_NAME}/callbacks`,
        headers: { 'content-type': options.contentType ?? 'application/json', [SIGNATURE_HEADER]: options.signature ?? signatureOf(body) },
        payload: body,
      });
    const callbackAbout = (processorRef: string) => JSON.stringify({ processorRef, reference: null, note: BODY_MARKER });
    const chargeOf = async (pk: number) =>
      (await t.service.db.read((tx) => tx.get<{ status: string; processor_ref: string }>('SELECT status, processor_ref FROM charges WHERE pk = ?', [pk])))!;
    const available = async () => (await t.service.db.read((tx) => getAccount(tx, merchantAccount(merchant.merchant_id, 'available'))))!.balance_cents;
    const heldCharge = async () => {
      const pk = await chargeCard(t, merchant, REVIEW_CARD, 12.34);
      const charge = await chargeOf(pk);
      assert.equal(charge.status, 'pending');
      return { pk, processorRef: charge.processor_ref };
    };

    it('a verified callback resolves a held charge by a poll, exactly once; a replay changes nothing', async () => {
      const { pk, processorRef } = await heldCharge();
      const start = await available();

      // Still under review at the processor: asked, and still pending.
      const early = await send(callbackAbout(processorRef));
      assert.equal(early.statusCode, 200, early.body);
      assert.deepEqual(early.json(), { received: true });
      assert.equal(calls.poll, 1);
      assert.equal((await chargeOf(pk)).status, 'pending');

      // Any content type: the connector reads the bytes as sent.
      releasedReviews.add(processorRef);
      const body = callbackAbout(processorRef);
      const decided = await send(body, { contentType: 'text/plain; charset=utf-8' });
      assert.deepEqual([decided.statusCode, decided.json()], [200, { received: true }]);
      assert.equal((await chargeOf(pk)).status, 'approved');
      assert.equal(await available(), start + 1234);

      const replay = await send(body);
      assert.deepEqual([replay.statusCode, replay.json()], [200, { received: true }]);
      assert.equal(calls.poll, 2, 'a final charge is not asked about again');
      assert.equal(await available(), start + 1234);
      await assertLedgerOk(t.service);
      assert.equal(t.logLines.filter((line) => line.includes(BODY_MARKER)).length, 0, 'a callback body reached the log');
    });

    it("a callback naming a charge by this installation's key resolves it even without a processor id; another installation's key names nothing", async () => {
      failing.authorizations = 1;
      const pk = await chargeCard(t, merchant, '4111111111111111', 5);
      assert.deepEqual(await chargeOf(pk), { status: 'pending', processor_ref: null });
      const foreign = t.service.providerKeys.key('charge', pk).replace(/^./, (c) => (c === '0' ? '1' : '0'));
      const about = (reference: string) => JSON.stringify({ processorRef: '', reference, note: BODY_MARKER });
      assert.equal((await send(about(foreign))).statusCode, 200);
      assert.equal((await chargeOf(pk)).status, 'pending');
      const named = await send(about(t.service.providerKeys.key('charge', pk)));
      assert.equal(named.statusCode, 200, named.body);
      assert.equal((await chargeOf(pk)).status, 'approved');
      await assertLedgerOk(t.service);
    });

    it('a callback whose signature fails is refused 401 and changes nothing', async () => {
      const { pk, processorRef } = await heldCharge();
      releasedReviews.add(processorRef);
      const body = callbackAbout(processorRef);
      const refusal = shapeC('invalid_signature', 'The callback signature does not verify');
      for (const signature of [signatureOf(body, 'another-key'), '', signatureOf(`${body} `)]) {
        const refused = await send(body, { signature });
        assert.deepEqual([refused.statusCode, refused.json()], [401, refusal]);
      }
      assert.equal(calls.poll, 0);
      assert.equal((await chargeOf(pk)).status, 'pending');
      assert.equal(t.logLines.filter((line) => line.includes(BODY_MARKER)).length, 0, 'a refused callback body reached the log');
      assert.ok(t.logLines.some((line) => line.includes('provider callback refused')));
    });

    it('a callback for a connector that is not configured, or takes no callbacks, is 404', async () => {
      const body = callbackAbout('sbx_1_P_0');
      for (const connector of ['authorize-net', 'sandbox']) {
        const refused = await send(body, { connector });
        assert.deepEqual([refused.statusCode, refused.json()], [404, shapeC('not_found', `no connector named ${connector} takes callbacks`)]);
      }
      assert.equal(calls.poll, 0);
    });

    it('a body over CALLBACK_BODY_MAX_BYTES is refused 413 in the envelope, unread', async () => {
      const body = Buffer.alloc(CALLBACK_BODY_MAX_BYTES + 1, 'a');
      const refused = await send(body, { contentType: 'application/octet-stream' });
      assert.deepEqual(
        [refused.statusCode, refused.json()],
        [413, shapeC('payload_too_large', `callback body too large: at most ${CALLBACK_BODY_MAX_BYTES} bytes`)],
      );
      assert.equal(calls.poll, 0);
    });

    // Last: the breaker stays open for the rest of this app's life.
    it("while the card processor's breaker is open a charge answers 503 and writes nothing; the worker leaves pending charges pending", async () => {
      failing.authorizations = BREAKER_FAILURES_MAX;
      const unanswered: number[] = [];
      for (let i = 0; i < BREAKER_FAILURES_MAX; i++) unanswered.push(await chargeCard(t, merchant, '4111111111111111', 1));
      for (const pk of unanswered) assert.equal((await chargeOf(pk)).status, 'pending');
      assert.equal(breakerOf(t.service.providers.cardProcessor)?.state(), 'open');

      const charges = await countCharges(t, merchant.merchant_id);
      const nonce = await nonceFor(t.app, merchant);
      const refused = await postCharge(t.app, basicOf(merchant), chargeBody(nonce));
      assert.deepEqual(
        [refused.statusCode, refused.json()],
        [503, shapeC('service_unavailable', 'the card processor is not answering (its circuit breaker is open); nothing was written; retry')],
      );
      assert.equal(await countCharges(t, merchant.merchant_id), charges);
      assert.equal(calls.authorize, BREAKER_FAILURES_MAX);

      // The worker's recovery is refused before sending too: unknown, so the charges stay pending, never failed.
      t.clock.advance(2 * 60 * 60_000);
      // (The charge held in review by the signature test is due too: its poll is refused the same way.)
      assert.ok((await resolveDueCharges(recoveryDepsOf(t.service))) >= BREAKER_FAILURES_MAX);
      for (const pk of unanswered) assert.equal((await chargeOf(pk)).status, 'pending');
      assert.deepEqual(calls, { authorize: BREAKER_FAILURES_MAX, poll: 0 });
      await assertLedgerOk(t.service);
    });
  });
}
