// The transfer API's whole sequence over real-shaped rails (issue's "done
// when", behaviour.md section 18): a corridor paid over mtn-momo and, in a
// second run, over pawapay, with veriff as the KYC provider and
// openexchangerates as the FX provider, every one against its stand-in, on
// both stores. Balance; KYC hands out a Veriff session link, a signed
// decision webhook approves the receiver, KYC then says verified; check
// quotes the provider's rate less the corridor's margin; execute; status to
// final with the network's transaction id. A payout whose network never
// answers stays in processing, is polled, and is sent once.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/domain/clock.ts';
import { readVerificationByPhone } from '../../src/store/receivers/verifications.ts';
import { type MtnMomoStandIn, startMtnMomoStandIn } from '../providers/mtn-momo/stand-in.ts';
import { startOxrStandIn, type OxrStandIn } from '../providers/openexchangerates/stand-in.ts';
import { type PawaPayStandIn, startPawaPayStandIn, ZMB_NUMBERS } from '../providers/pawapay/stand-in.ts';
import { startVeriffStandIn, type VeriffStandIn } from '../providers/veriff/stand-in.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS, tempDir } from '../helpers/stores.ts';
import { assertLedgerOk, balances, caller, created, failure, newTransferId, receiver, SENDER } from '../helpers/transfers.ts';

/** What differs between the two payout networks in this sequence. */
interface Rail {
  readonly connector: 'mtn-momo' | 'pawapay';
  readonly corridor: Record<string, unknown>;
  /** The stand-in's rate of the corridor currency (JSON number text) and the quote after the 2 % margin. */
  readonly providerRate: string;
  readonly quotedRate: string;
  /** 10.00 USD at the quoted rate, in the decimals the network takes. */
  readonly received: string;
  readonly paidReceiver: string;
  readonly silentReceiver: string;
  start(): Promise<{ env: Record<string, string>; sentTo(phone: string): number; close(): Promise<void> }>;
}

const MARGIN = '2';

const RAILS: readonly Rail[] = [
  {
    connector: 'mtn-momo',
    corridor: {
      service: '1005',
      country: 'UG',
      currency: 'UGX',
      currency_minor_units: 0,
      fx_rate: '3680',
      min_amount: '1.00',
      max_amount: '1500.00',
      required_attributes: [],
      payout_connector: 'mtn-momo',
      payout_settings: { target_environment: 'sandbox', currency: 'EUR' },
      fx_margin_percent: MARGIN,
    },
    providerRate: '3702.5',
    // 3702.5 x 0.98
    quotedRate: '3628.45',
    received: '36285',
    paidReceiver: receiver('4101', 'UG'),
    silentReceiver: receiver('4102', 'UG'),
    async start() {
      const momo: MtnMomoStandIn = await startMtnMomoStandIn();
      // MoMo leaves this one PENDING for ever.
      momo.scriptNumber(receiver('4102', 'UG').slice(1), { status: 'PENDING' });
      return {
        env: {
          PAYRAIL_MTN_MOMO_URL: momo.url,
          PAYRAIL_MTN_MOMO_SUBSCRIPTION_KEY: momo.subscriptionKey,
          PAYRAIL_MTN_MOMO_API_USER: momo.apiUser,
          PAYRAIL_MTN_MOMO_API_KEY: momo.apiKey,
        },
        sentTo: (phone) => momo.transfers().filter((transfer) => transfer.msisdn === phone.slice(1)).length,
        close: () => momo.close(),
      };
    },
  },
  {
    connector: 'pawapay',
    corridor: {
      service: '2601',
      country: 'ZM',
      currency: 'ZMW',
      currency_minor_units: 2,
      fx_rate: '26.55',
      min_amount: '1.00',
      max_amount: '1000.00',
      required_attributes: [],
      payout_connector: 'pawapay',
      payout_settings: { provider: 'MTN_MOMO_ZMB' },
      fx_margin_percent: MARGIN,
    },
    providerRate: '26.7',
    // 26.7 x 0.98
    quotedRate: '26.166',
    // 261.66 ZMW, in the whole units pawaPay's providers take by default
    received: '262.00',
    paidReceiver: ZMB_NUMBERS.completed,
    // pawaPay's published number that never calls back and stays in processing.
    silentReceiver: ZMB_NUMBERS.stuck,
    async start() {
      const pawapay: PawaPayStandIn = await startPawaPayStandIn();
      return {
        env: { PAYRAIL_PAWAPAY_URL: pawapay.url, PAYRAIL_PAWAPAY_TOKEN: pawapay.token },
        sentTo: (phone) =>
          pawapay
            .payouts()
            .filter((payout) => JSON.stringify(payout.request).includes(phone.slice(1)))
            .reduce((sum, payout) => sum + payout.initiations, 0),
        close: () => pawapay.close(),
      };
    },
  },
];

for (const rail of RAILS) {
  for (const kind of STORE_KINDS) {
    describe(`transfers over ${rail.connector}, veriff and openexchangerates (${kind})`, () => {
      let t: TestApp;
      let veriff: VeriffStandIn;
      let oxr: OxrStandIn;
      let network: Awaited<ReturnType<Rail['start']>>;
      let api: ReturnType<typeof caller>;
      let merchantId: string;
      const currency = String(rail.corridor.currency);
      const body = (receiverPhone: string, amount: string) => ({
        id: newTransferId(),
        sender_phone: SENDER,
        receiver_phone: receiverPhone,
        amount,
        service: String(rail.corridor.service),
        receiver_country: String(rail.corridor.country),
        receiver_currency: currency,
        attribute: [],
      });

      before(async () => {
        const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
        [veriff, oxr, network] = await Promise.all([startVeriffStandIn(), startOxrStandIn({ timestampSeconds: clock.nowMs() / 1000 }), rail.start()]);
        oxr.setRate(currency, rail.providerRate);
        const corridors = path.join(tempDir(), 'corridors.json');
        fs.writeFileSync(corridors, JSON.stringify({ corridors: [rail.corridor] }));
        t = await createTestApp(kind, {
          clock,
          env: {
            PAYRAIL_CORRIDORS_FILE: corridors,
            PAYRAIL_KYC_PROVIDER: 'veriff',
            PAYRAIL_VERIFF_URL: veriff.url,
            PAYRAIL_VERIFF_API_KEY: veriff.apiKey,
            PAYRAIL_VERIFF_SHARED_SECRET: veriff.sharedSecret,
            PAYRAIL_FX_PROVIDER: 'openexchangerates',
            PAYRAIL_OXR_URL: oxr.url,
            PAYRAIL_OXR_APP_ID: oxr.appId,
            ...network.env,
          },
        });
        const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
        veriff.webhookTo(`${address}/providers/veriff/callbacks`);
        const merchant = await t.newMerchant({ fundCents: 1_000_000 });
        merchantId = merchant.merchant_id;
        api = caller(t.app, merchant.transfer_api_key);
      });
      after(async () => {
        await veriff.webhooksIdle();
        await t.close();
        await Promise.all([veriff.close(), oxr.close(), network.close()]);
      });

      /** Lets the worker submit, then poll after each wait the connector asked for. */
      const work = async (rounds: number) => {
        for (let round = 0; round < rounds; round += 1) {
          await t.worker.drain();
          t.clock.advance(60_000);
        }
        await t.worker.drain();
      };
      const resultOf = async (id: string) =>
        ((await api.status(id)).body as { status: { result: { state: number; final: number; trans: string | null; sum_prov: string | null } } }).status.result;

      it('balance, KYC by a Veriff session and its decision, a quote at the provider rate less the margin, execute, final', async () => {
        assert.deepEqual(await api.balance().then((reply) => reply.status), 200);
        const phone = rail.paidReceiver;
        const first = await api.kyc(phone.slice(1));
        const session = (await readVerificationByPhone(t.service.db, phone))?.sessionId ?? assert.fail('no Veriff session kept');
        assert.deepEqual(first, {
          status: 200,
          body: { success: true, error: '', kyc_verify: false, money_limit: '0', kyc_url: veriff.session(session).url },
        });
        assert.deepEqual(await api.check(body(phone, '10.00')), {
          status: 400,
          body: failure('kyc_not_verified', 'receiver_phone cannot receive transfers until the receiver completes KYC verification'),
        });

        // Veriff decides and tells Payrail by its signed webhook.
        assert.equal(await veriff.decide(session, 'approved'), 200);
        assert.deepEqual(await api.kyc(phone.slice(1)), {
          status: 200,
          body: { success: true, error: '', kyc_verify: true, money_limit: '3000.00', kyc_url: '' },
        });

        const transfer = body(phone, '10.00');
        assert.deepEqual(await api.check(transfer), {
          status: 200,
          body: {
            success: true,
            error: '',
            attribute: [
              { name: 'fx_rate', value: rail.quotedRate },
              { name: 'receivedAmount', value: rail.received },
              { name: 'receiverStatus', value: 'registered' },
            ],
          },
        });
        assert.deepEqual(await api.execute(transfer), { status: 200, body: created(transfer.id) });
        await work(3);
        const result = await resultOf(transfer.id);
        assert.deepEqual([result.state, result.final, result.sum_prov], [60, 1, rail.received]);
        assert.ok(result.trans !== null && result.trans !== '', 'the network transaction id is kept');
        assert.equal(network.sentTo(phone), 1);
        await assertLedgerOk(t.service);
      });

      it('a payout the network never answers stays in processing, polled, sent once, its money held', async () => {
        const phone = rail.silentReceiver;
        await api.kyc(phone.slice(1));
        const session = (await readVerificationByPhone(t.service.db, phone))?.sessionId ?? assert.fail('no Veriff session kept');
        assert.equal(await veriff.decide(session, 'approved'), 200);
        const start = await balances(t.service, merchantId);
        const transfer = body(phone, '12.00');
        assert.deepEqual(await api.execute(transfer), { status: 200, body: created(transfer.id) });
        await work(6);
        const result = await resultOf(transfer.id);
        assert.deepEqual([result.state, result.final], [40, 0]);
        assert.equal(network.sentTo(phone), 1, 'submitted once however often it was polled');
        const now = await balances(t.service, merchantId);
        assert.deepEqual([now.available, now.in_flight], [start.available - 1200, start.in_flight + 1200]);
        await assertLedgerOk(t.service);
      });
    });
  }
}
