// The transfer API paid over pawaPay, end to end against the stand-in, on
// both stores: a corridor whose payout_connector is pawapay, a payout that
// completes, one that fails with pawaPay's reason, one that never calls
// back (polled, stays in processing, never paid twice), a connection dropped
// after pawaPay took the payout (paid once), and callbacks at
// /providers/pawapay/callbacks: signed ones taken, forged ones refused 401.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS, tempDir } from '../helpers/stores.ts';
import { assertLedgerOk, balances, caller, created, failure, newTransferId, SENDER } from '../helpers/transfers.ts';
import { startPawaPayStandIn, type PawaPayStandIn, ZMB_NUMBERS } from './pawapay/stand-in.ts';

const SERVICE = '2601';
const CORRIDOR = {
  service: SERVICE,
  country: 'ZM',
  currency: 'ZMW',
  currency_minor_units: 2,
  fx_rate: '26.55',
  min_amount: '1.00',
  max_amount: '1000.00',
  required_attributes: [],
  payout_connector: 'pawapay',
  payout_settings: { provider: 'MTN_MOMO_ZMB' },
};

const body = (receiverPhone: string, amount = '10.00') => ({
  id: newTransferId(),
  sender_phone: SENDER,
  receiver_phone: receiverPhone,
  amount,
  service: SERVICE,
  receiver_country: 'ZM',
  receiver_currency: 'ZMW',
  attribute: [],
});

interface Result {
  state: number;
  substate: number;
  final: number;
  trans: string | null;
  attribute: Array<{ name: string; value: string }>;
}

for (const kind of STORE_KINDS) {
  describe(`transfers paid over pawaPay (${kind})`, () => {
    let standIn: PawaPayStandIn;
    let t: TestApp;
    let api: ReturnType<typeof caller>;
    let merchant: Awaited<ReturnType<TestApp['newMerchant']>>;
    const dir = tempDir();

    before(async () => {
      standIn = await startPawaPayStandIn();
      const corridors = path.join(dir, 'corridors.json');
      fs.writeFileSync(corridors, JSON.stringify({ corridors: [CORRIDOR] }));
      t = await createTestApp(kind, { env: { PAYRAIL_CORRIDORS_FILE: corridors, PAYRAIL_PAWAPAY_URL: standIn.url, PAYRAIL_PAWAPAY_TOKEN: standIn.token } });
      merchant = await t.newMerchant({ fundCents: 1_000_000 });
      api = caller(t.app, merchant.transfer_api_key);
    });
    after(async () => {
      await t.close();
      await standIn.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const resultOf = async (id: string): Promise<Result> => ((await api.status(id)).body as { status: { result: Result } }).status.result;
    /** Lets the worker submit, then poll after each wait the connector asked for. */
    const work = async (rounds = 3) => {
      for (let round = 0; round < rounds; round += 1) {
        await t.worker.drain();
        t.clock.advance(60_000);
      }
      await t.worker.drain();
    };
    const payoutsOf = (amount: string) => standIn.payouts().filter((payout) => payout.request.amount === amount);

    it('checks a receiver with pawaPay and pays a published success number: 60, with the provider transaction id', async () => {
      const check = await api.check(body(ZMB_NUMBERS.completed));
      assert.equal(check.status, 200);
      const transfer = body(ZMB_NUMBERS.completed, '10.00');
      assert.deepEqual(await api.execute(transfer), { status: 200, body: created(transfer.id) });
      await work();
      const result = await resultOf(transfer.id);
      assert.deepEqual([result.state, result.final], [60, 1]);
      const paid = standIn.payouts().find((payout) => payout.providerTransactionId === result.trans);
      assert.ok(paid, 'the transaction reference is the one pawaPay reported');
      // 10.00 USD at 26.55 is 265.50 ZMW, rounded to the whole units the corridor's provider takes by default.
      assert.deepEqual([paid.request.amount, paid.request.currency, paid.initiations], ['266', 'ZMW', 1]);
      await assertLedgerOk(t.service);
    });

    it('refuses a receiver of another provider at check and execute: pawaPay sends no invitations', async () => {
      const start = await balances(t.service, merchant.merchant_id);
      const refusal = {
        status: 400,
        body: failure('invalid_phone_number', `receiver_phone has no wallet on the payout network of service ${SERVICE}, which cannot invite new receivers`),
      };
      assert.deepEqual(await api.check(body(ZMB_NUMBERS.otherProvider)), refusal);
      assert.deepEqual(await api.execute(body(ZMB_NUMBERS.otherProvider)), refusal);
      assert.deepEqual(await balances(t.service, merchant.merchant_id), start);
    });

    it('a payout pawaPay fails ends at 80 with its code and text, the money back', async () => {
      const start = await balances(t.service, merchant.merchant_id);
      const transfer = body(ZMB_NUMBERS.recipientNotFound, '11.00');
      await api.execute(transfer);
      await work();
      const result = await resultOf(transfer.id);
      assert.deepEqual([result.state, result.final], [80, 1]);
      const attributes = Object.fromEntries(result.attribute.map((entry) => [entry.name, entry.value]));
      assert.equal(attributes['provider-error-code'], 'RECIPIENT_NOT_FOUND');
      assert.ok((attributes['provider-error-text'] ?? '').length > 0);
      assert.deepEqual(await balances(t.service, merchant.merchant_id), start);
      await assertLedgerOk(t.service);
    });

    it('the number that never calls back stays in processing, polled, submitted once', async () => {
      const transfer = body(ZMB_NUMBERS.stuck, '12.00');
      await api.execute(transfer);
      await work(5);
      const result = await resultOf(transfer.id);
      assert.deepEqual([result.state, result.final], [40, 0]);
      assert.deepEqual(
        payoutsOf('319').map((payout) => payout.initiations),
        [1],
      );
    });

    it('a connection dropped after pawaPay took the payout: resubmitted, DUPLICATE_IGNORED, paid once', async () => {
      const transfer = body(ZMB_NUMBERS.completed, '13.00');
      assert.deepEqual(await api.execute(transfer), { status: 200, body: created(transfer.id) });
      // The next call to pawaPay is the worker's submission.
      standIn.failNext('drop-after-accept');
      await work(4);
      const result = await resultOf(transfer.id);
      assert.deepEqual([result.state, result.final], [60, 1]);
      const paid = payoutsOf('345');
      assert.equal(paid.length, 1);
      assert.equal(paid[0]!.initiations, 2);
      await assertLedgerOk(t.service);
    });

    it('takes signed callbacks at /providers/pawapay/callbacks and refuses forged ones 401', async () => {
      const captured: Array<{ rawBody: Buffer; headers: Record<string, string> }> = [];
      const receiver = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          const { 'content-length': _length, ...headers } = request.headers as Record<string, string>;
          captured.push({ rawBody: Buffer.concat(chunks), headers });
          response.writeHead(200).end();
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      try {
        const port = (receiver.address() as { port: number }).port;
        standIn.callbackTo(`http://127.0.0.1:${port}/providers/pawapay/callbacks`);
        await api.execute(body(ZMB_NUMBERS.completed, '14.00'));
        await t.worker.drain();
        await standIn.callbacksIdle();
        assert.equal(captured.length, 1);
        const { rawBody, headers } = captured[0]!;
        const relay = (payload: Buffer, extra: Record<string, string> = {}) =>
          t.app.inject({ method: 'POST', url: '/providers/pawapay/callbacks', headers: { ...headers, ...extra }, payload });
        assert.equal((await relay(rawBody)).statusCode, 200);
        assert.equal((await relay(Buffer.from(rawBody.toString('utf8').replace('COMPLETED', 'FAILED')))).statusCode, 401);
        assert.equal((await relay(rawBody, { signature: 'sig-pp=:AAAA:' })).statusCode, 401);
      } finally {
        standIn.callbackTo(null);
        await new Promise<void>((resolve) => receiver.close(() => resolve()));
      }
    });
  });
}
