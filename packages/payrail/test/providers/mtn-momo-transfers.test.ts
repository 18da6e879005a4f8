// The transfer API paying through the mtn-momo connector against the MoMo
// stand-in, on both stores: a corridor names mtn-momo in the corridors file
// (the deployment's default network stays the simulator), its payouts reach
// MoMo in the corridor's payout_settings (target environment, currency),
// end in Payrail's states with MoMo's reason as provider-error-code, and a
// payout whose reply was lost is resubmitted under its reference and paid
// once; MoMo's unsigned callbacks are received at its callback route.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { POLL_INTERVAL_MS_MAX, RETRY_BACKOFF_MS_MAX } from '../../src/flows/transfers/advance.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS, tempDir } from '../helpers/stores.ts';
import { assertLedgerOk, caller, created, receiver, transferBody, transferPk } from '../helpers/transfers.ts';
import { type MtnMomoStandIn, startMtnMomoStandIn } from './mtn-momo/stand-in.ts';

const SANDBOX_CORRIDORS = path.join(import.meta.dirname, '..', '..', 'config', 'corridors.sandbox.json');

/** The sandbox corridors, with Uganda paid over mtn-momo in MTN's sandbox. */
function corridorsFile(dir: string): string {
  const document = JSON.parse(fs.readFileSync(SANDBOX_CORRIDORS, 'utf8')) as { corridors: Array<Record<string, unknown>> };
  for (const corridor of document.corridors) {
    if (corridor.country === 'UG') {
      corridor.payout_connector = 'mtn-momo';
      corridor.payout_settings = { target_environment: 'sandbox', currency: 'EUR' };
    }
  }
  const file = path.join(dir, 'corridors.json');
  fs.writeFileSync(file, JSON.stringify(document));
  return file;
}

for (const kind of STORE_KINDS) {
  describe(`transfers paid over mtn-momo (${kind})`, () => {
    const dir = tempDir();
    let standIn: MtnMomoStandIn;
    let t: TestApp;
    let api: ReturnType<typeof caller>;
    let merchantId: string;

    before(async () => {
      standIn = await startMtnMomoStandIn();
      t = await createTestApp(kind, {
        env: {
          PAYRAIL_CORRIDORS_FILE: corridorsFile(dir),
          PAYRAIL_MTN_MOMO_URL: standIn.url,
          PAYRAIL_MTN_MOMO_SUBSCRIPTION_KEY: standIn.subscriptionKey,
          PAYRAIL_MTN_MOMO_API_USER: standIn.apiUser,
          PAYRAIL_MTN_MOMO_API_KEY: standIn.apiKey,
        },
      });
      const merchant = await t.newMerchant({ fundCents: 1_000_000 });
      merchantId = merchant.merchant_id;
      api = caller(t.app, merchant.transfer_api_key);
    });
    after(async () => {
      await t.close();
      await standIn.callbacksIdle();
      await standIn.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const resultOf = async (id: string) =>
      (
        (await api.status(id)).body as {
          status: { result: { state: number; substate: number; trans: string; attribute: Array<{ name: string; value: string }> } };
        }
      ).status;

    it("a payout reaches MoMo in the corridor's settings and ends paid with MoMo's transaction id", async () => {
      const body = transferBody({ country: 'UG', lastFour: '2001', amount: '10.00' });
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
      await t.worker.drain();
      const sent = standIn.transfers().at(-1)!;
      assert.equal(sent.msisdn, body.receiver_phone.slice(1));
      assert.equal(sent.currency, 'EUR');
      assert.equal(sent.targetEnvironment, 'sandbox');
      assert.match(sent.amount, /^[1-9]\d*$/, 'UGX has no minor units: whole shillings');
      assert.equal(sent.externalId, t.service.providerKeys.key('transfer', await transferPk(t.service, merchantId, body.id)));
      t.clock.advance(POLL_INTERVAL_MS_MAX);
      await t.worker.drain();
      const status = await resultOf(body.id);
      assert.equal(status.result.state, 60);
      assert.equal(status.result.trans, sent.financialTransactionId);
      await assertLedgerOk(t.service);
    });

    it("a payout MoMo reports FAILED ends failed with MoMo's reason as provider-error-code and -text", async () => {
      const phone = receiver('2002', 'UG');
      standIn.scriptNumber(phone.slice(1), { status: 'FAILED', reason: 'PAYEE_NOT_ALLOWED_TO_RECEIVE' });
      const body = transferBody({ country: 'UG', lastFour: '2002', amount: '10.00' });
      await api.execute(body);
      await t.worker.drain();
      t.clock.advance(POLL_INTERVAL_MS_MAX);
      await t.worker.drain();
      const status = await resultOf(body.id);
      assert.equal(status.result.state, 80);
      const attribute = Object.fromEntries(status.result.attribute.map((entry) => [entry.name, entry.value]));
      assert.equal(attribute['provider-error-code'], 'PAYEE_NOT_ALLOWED_TO_RECEIVE');
      assert.equal(attribute['provider-error-text'], 'The receiver wallet is blocked from receiving money');
      await assertLedgerOk(t.service);
    });

    it('a payout whose connection dropped after MoMo took it is resubmitted under its reference (409) and paid once', async () => {
      const body = transferBody({ country: 'UG', lastFour: '2003', amount: '12.00' });
      const takenBefore = standIn.transfersTaken();
      standIn.failNext('drop-after-accept');
      await api.execute(body);
      await t.worker.drain();
      assert.deepEqual([(await resultOf(body.id)).result.state, (await resultOf(body.id)).result.substate], [40, 3]);
      assert.equal(standIn.transfersTaken(), takenBefore + 1);
      t.clock.advance(RETRY_BACKOFF_MS_MAX);
      await t.worker.drain();
      t.clock.advance(POLL_INTERVAL_MS_MAX);
      await t.worker.drain();
      assert.equal((await resultOf(body.id)).result.state, 60);
      assert.equal(standIn.transfersTaken(), takenBefore + 1, 'MoMo took the transfer once');
      await assertLedgerOk(t.service);
    });

    it('MoMo callbacks reach /providers/mtn-momo/callbacks: a transfer result is received, anything else refused (401) and changes nothing', async () => {
      const body = transferBody({ country: 'UG', lastFour: '2004', amount: '10.00' });
      await api.execute(body);
      await t.worker.drain();
      const key = t.service.providerKeys.key('transfer', await transferPk(t.service, merchantId, body.id));
      const result = { amount: '100', currency: 'EUR', financialTransactionId: '1234567', externalId: key, status: 'SUCCESSFUL' };
      const received = await t.app.inject({
        method: 'POST',
        url: '/providers/mtn-momo/callbacks',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(result),
      });
      assert.equal(received.statusCode, 200);
      for (const payload of ['not json', JSON.stringify({ hello: 'world' })]) {
        const refused = await t.app.inject({ method: 'POST', url: '/providers/mtn-momo/callbacks', headers: { 'content-type': 'application/json' }, payload });
        assert.equal(refused.statusCode, 401, payload);
      }
      // Polling stays the backstop: the payout ends as MoMo reports it.
      t.clock.advance(POLL_INTERVAL_MS_MAX);
      await t.worker.drain();
      assert.equal((await resultOf(body.id)).result.state, 60);
      await assertLedgerOk(t.service);
    });
  });
}
