// Every row of the sandbox receiver catalogue (docs/api-decisions.md section 6) driven to
// its final state through HTTP, the worker (drain) and the manual clock, on
// both stores; the invitation and KYC flows with their sandbox-only calls
// and pages; and their refusal in production.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/log.ts';
import { createService } from '../../src/runtime.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { assertLedgerOk, balances, caller, created, events, failure, receiver, statusBody, transferBody } from '../helpers/transfers.ts';

const SIX_HOURS_MS = 6 * 60 * 60 * 1000;
const STEP_MS = 1000;
const ok = { status: 200, body: { success: true, error: '' } };

type Api = ReturnType<typeof caller>;
type Merchant = Awaited<ReturnType<TestApp['newMerchant']>>;

/** The trans reference of a finished transfer (it carries the network's submission time). */
async function transOf(api: Api, id: string): Promise<string> {
  const reply = await api.status(id);
  return (reply.body as { status: { result: { trans: string } } }).status.result.trans;
}

async function expectSucceeded(t: TestApp, api: Api, id: string, sumProv: string): Promise<void> {
  const trans = await transOf(api, id);
  assert.match(trans, /^SBX-\d+-[0-9a-z]{1,20}$/);
  assert.deepEqual(await api.status(id), {
    status: 200,
    body: statusBody(id, { state: 60, substate: 0, final: 1, serverTimeMs: t.clock.nowMs(), trans, sum_prov: sumProv }),
  });
}

function failedStatus(t: TestApp, id: string, substate: number, text: string, code: string): unknown {
  return {
    status: 200,
    body: statusBody(id, {
      state: 80,
      substate,
      final: 1,
      serverTimeMs: t.clock.nowMs(),
      attribute: [
        { name: 'provider-error-text', value: text },
        { name: 'provider-error-code', value: code },
      ],
    }),
  };
}

for (const kind of STORE_KINDS) {
  describe(`sandbox receiver catalogue (${kind})`, () => {
    let t: TestApp;
    let api: Api;
    let merchant: Merchant;
    const url = (what: string, digits: string) => `${t.service.config.publicUrl}/sandbox/${what}/${digits}`;

    before(async () => {
      t = await createTestApp(kind);
      merchant = await t.newMerchant({ fundCents: 1_000_000 });
      api = caller(t.app, merchant.transfer_api_key);
    });
    after(async () => {
      await t.close();
    });

    it('any other number: 0 -> 40 -> 60, paid out', async () => {
      const body = transferBody({ lastFour: '5678', amount: '20.00' });
      const start = await balances(t.service, merchant.merchant_id);
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
      await t.worker.drain();
      assert.deepEqual(await events(t.service, merchant.merchant_id, body.id), [
        [0, 0],
        [40, 1],
        [60, 0],
      ]);
      await expectSucceeded(t, api, body.id, '2585.00');
      assert.deepEqual(await balances(t.service, merchant.merchant_id), {
        available: start.available - 2000,
        in_flight: start.in_flight,
        paid_out: start.paid_out + 2000,
      });
      await assertLedgerOk(t.service);
    });

    it('0001: KYC limit 0 refuses check and execute; after verification at kyc_url the transfer goes through', async () => {
      const account = receiver('0001').slice(1);
      const body = transferBody({ lastFour: '0001' });
      const refusal = {
        status: 400,
        body: failure('kyc_not_verified', 'receiver_phone cannot receive transfers until the receiver completes KYC verification'),
      };
      assert.deepEqual(await api.check(body), refusal);
      assert.deepEqual(await api.execute(body), refusal);
      assert.deepEqual(await api.kyc(account), {
        status: 200,
        body: { success: true, error: '', kyc_verify: false, money_limit: '0', kyc_url: url('kyc', account) },
      });
      assert.deepEqual(await api.verify(account), ok);
      assert.deepEqual(await api.kyc(account), { status: 200, body: { success: true, error: '', kyc_verify: true, money_limit: '3000.00', kyc_url: '' } });
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
      await t.worker.drain();
      await expectSucceeded(t, api, body.id, '1292.50');
      assert.deepEqual(await api.verify(account), ok, 'verifying again changes nothing');
      await assertLedgerOk(t.service);
    });

    it('0002: up to 100.00 succeeds, above it kyc_not_verified', async () => {
      const refusal = {
        status: 400,
        body: failure(
          'kyc_not_verified',
          'receiver_phone can receive at most 100.00 per transfer; the receiver must complete KYC verification to receive more',
        ),
      };
      const above = transferBody({ lastFour: '0002', amount: '100.01' });
      assert.deepEqual(await api.check(above), refusal);
      assert.deepEqual(await api.execute(above), refusal);
      const within = transferBody({ lastFour: '0002', amount: '100.00' });
      assert.deepEqual(await api.check(within), {
        status: 200,
        body: {
          success: true,
          error: '',
          attribute: [
            { name: 'fx_rate', value: '129.25' },
            { name: 'receivedAmount', value: '12925.00' },
            { name: 'receiverStatus', value: 'registered' },
          ],
        },
      });
      assert.deepEqual(await api.execute(within), { status: 200, body: created(within.id) });
      await t.worker.drain();
      await expectSucceeded(t, api, within.id, '12925.00');
      await assertLedgerOk(t.service);
    });

    it('a verified receiver is still held to the 3000.00 limit (NG allows 5000.00)', async () => {
      const body = transferBody({ country: 'NG', lastFour: '5678', amount: '3000.01' });
      assert.deepEqual(await api.check(body), { status: 400, body: failure('kyc_not_verified', 'receiver_phone can receive at most 3000.00 per transfer') });
    });

    it('0003: unregistered; execute sends an invitation (0/9 waitingFor invitation); accepting it lets the transfer proceed to 60', async () => {
      const account = receiver('0003').slice(1);
      const body = transferBody({ lastFour: '0003', amount: '30.00' });
      assert.deepEqual(await api.kyc(account), { status: 404, body: failure('account_not_found', `no receiver account for ${account}`) });
      assert.deepEqual(await api.check(body), {
        status: 200,
        body: {
          success: true,
          error: '',
          attribute: [
            { name: 'fx_rate', value: '129.25' },
            { name: 'receivedAmount', value: '3877.50' },
            { name: 'receiverStatus', value: 'unregistered' },
          ],
        },
      });
      const start = await balances(t.service, merchant.merchant_id);
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id, '9') });
      assert.deepEqual(await balances(t.service, merchant.merchant_id), { ...start, available: start.available - 3000, in_flight: start.in_flight + 3000 });
      const waiting = () => ({
        status: 200,
        body: statusBody(body.id, {
          state: 0,
          substate: 9,
          final: 0,
          serverTimeMs: t.clock.nowMs(),
          attribute: [
            { name: 'waitingFor', value: 'invitation' },
            { name: 'invitationUrl', value: url('invitations', account) },
          ],
        }),
      });
      assert.deepEqual(await api.status(body.id), waiting());
      t.clock.advance(SIX_HOURS_MS - 1);
      await t.worker.drain();
      assert.deepEqual(await api.status(body.id), waiting(), 'not expired 1 ms before 6 hours');
      assert.deepEqual(await api.verify(account), {
        status: 404,
        body: failure('account_not_found', `no receiver account for ${account}; the receiver must accept a payment invitation first`),
      });
      assert.deepEqual(await api.accept(account), ok);
      assert.deepEqual(await api.status(body.id), {
        status: 200,
        body: statusBody(body.id, { state: 0, substate: 0, final: 0, serverTimeMs: t.clock.nowMs() }),
      });
      await t.worker.drain();
      assert.deepEqual(await events(t.service, merchant.merchant_id, body.id), [
        [0, 9],
        [0, 0],
        [40, 1],
        [60, 0],
      ]);
      await expectSucceeded(t, api, body.id, '3877.50');
      assert.deepEqual(await api.kyc(account), { status: 200, body: { success: true, error: '', kyc_verify: true, money_limit: '3000.00', kyc_url: '' } });
      const next = transferBody({ lastFour: '0003' });
      assert.deepEqual(await api.execute(next), { status: 200, body: created(next.id) }, 'a registered receiver needs no invitation');
      await t.worker.drain();
      await assertLedgerOk(t.service);
    });

    it('0003: a new receiver is held to the limit an accepted invitation gives (3000.00): more is refused at check and execute', async () => {
      const account = receiver('0003', 'NG').slice(1);
      const refusal = {
        status: 400,
        body: failure(
          'kyc_not_verified',
          'receiver_phone is new to the network and can receive at most 3000.00 per transfer once they accept the payment invitation',
        ),
      };
      const start = await balances(t.service, merchant.merchant_id);
      const above = transferBody({ country: 'NG', lastFour: '0003', amount: '4000.00' });
      assert.deepEqual(await api.check(above), refusal);
      assert.deepEqual(await api.execute(above), refusal);
      assert.deepEqual(await api.status(above.id), {
        status: 200,
        body: { success: true, error: '', payment_response: { id: above.id, payment_id: null, state: '-2', substate: '0', code: '0' } },
      });
      assert.deepEqual(await balances(t.service, merchant.merchant_id), start);
      const within = transferBody({ country: 'NG', lastFour: '0003', amount: '3000.00' });
      assert.deepEqual(await api.execute(within), { status: 200, body: created(within.id, '9') });
      assert.deepEqual(await api.accept(account), ok);
      assert.deepEqual(await api.kyc(account), { status: 200, body: { success: true, error: '', kyc_verify: true, money_limit: '3000.00', kyc_url: '' } });
      await t.worker.drain();
      await expectSucceeded(t, api, within.id, '4591500.00');
      await assertLedgerOk(t.service);
    });

    it('0003: an invitation not accepted within 6 hours expires: 80, funds returned; a late acceptance changes nothing', async () => {
      const account = receiver('0003', 'PH').slice(1);
      const body = transferBody({ country: 'PH', lastFour: '0003', amount: '40.00' });
      const start = await balances(t.service, merchant.merchant_id);
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id, '9') });
      t.clock.advance(SIX_HOURS_MS);
      await t.worker.drain();
      const expired = failedStatus(t, body.id, 6, 'Payment invitation expired: the receiver did not join the network within 6 hours', 'INVITATION_EXPIRED');
      assert.deepEqual(await api.status(body.id), expired);
      assert.deepEqual(await events(t.service, merchant.merchant_id, body.id), [
        [0, 9],
        [80, 6],
      ]);
      assert.deepEqual(await balances(t.service, merchant.merchant_id), start);
      assert.deepEqual(await api.accept(account), ok);
      await t.worker.drain();
      assert.deepEqual(await api.status(body.id), expired);
      await assertLedgerOk(t.service);
    });

    it('0004: 0 -> 40 -> 80 substate 5 with provider-error-text and provider-error-code; funds returned', async () => {
      const body = transferBody({ lastFour: '0004', amount: '15.00' });
      const start = await balances(t.service, merchant.merchant_id);
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
      await t.worker.drain();
      assert.deepEqual(await events(t.service, merchant.merchant_id, body.id), [
        [0, 0],
        [40, 1],
        [80, 5],
      ]);
      assert.deepEqual(
        await api.status(body.id),
        failedStatus(t, body.id, 5, 'Receiver wallet rejected the payment (sandbox receiver ending in 0004)', 'WALLET_REJECTED'),
      );
      assert.deepEqual(await balances(t.service, merchant.merchant_id), start);
      t.clock.advance(SIX_HOURS_MS);
      await t.worker.drain();
      assert.deepEqual(
        await events(t.service, merchant.merchant_id, body.id),
        [
          [0, 0],
          [40, 1],
          [80, 5],
        ],
        'a final state never changes',
      );
      await assertLedgerOk(t.service);
    });

    it('0006: the network fails twice (40 substate 4), the worker retries with backoff, then 60', async () => {
      const body = transferBody({ lastFour: '0006' });
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
      await t.worker.drain();
      const retrying = () => ({ status: 200, body: statusBody(body.id, { state: 40, substate: 4, final: 0, serverTimeMs: t.clock.nowMs() }) });
      assert.deepEqual(await api.status(body.id), retrying());
      t.clock.advance(999);
      await t.worker.drain();
      assert.deepEqual(
        await events(t.service, merchant.merchant_id, body.id),
        [
          [0, 0],
          [40, 4],
        ],
        'no retry before the first backoff (1 s)',
      );
      t.clock.advance(1);
      await t.worker.drain();
      assert.deepEqual(await api.status(body.id), retrying());
      t.clock.advance(1999);
      await t.worker.drain();
      assert.deepEqual(
        await events(t.service, merchant.merchant_id, body.id),
        [
          [0, 0],
          [40, 4],
          [40, 4],
        ],
        'the second backoff is 2 s',
      );
      t.clock.advance(1);
      await t.worker.drain();
      assert.deepEqual(await events(t.service, merchant.merchant_id, body.id), [
        [0, 0],
        [40, 4],
        [40, 4],
        [40, 1],
        [60, 0],
      ]);
      await expectSucceeded(t, api, body.id, '1292.50');
      await assertLedgerOk(t.service);
    });

    describe('sandbox pages', () => {
      const page = async (method: 'GET' | 'POST', path: string) => {
        const reply = await t.app.inject({
          method,
          url: path,
          headers: method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
          payload: method === 'POST' ? '' : undefined,
        });
        return { status: reply.statusCode, type: reply.headers['content-type'], html: reply.body };
      };

      it('kyc_url shows a mobile-friendly page whose button completes verification', async () => {
        const account = receiver('0001', 'GH').slice(1);
        const kycUrl = (await api.kyc(account)).body as { kyc_url: string };
        assert.equal(kycUrl.kyc_url, url('kyc', account));
        const path = new URL(kycUrl.kyc_url).pathname;
        const shown = await page('GET', path);
        assert.equal(shown.status, 200);
        assert.equal(shown.type, 'text/html; charset=utf-8');
        assert.match(shown.html, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
        assert.match(shown.html, /<form method="post"><button type="submit">Complete verification<\/button><\/form>/);
        assert.match(shown.html, new RegExp(`\\+${account} can receive up to 0\\.00 USD per transfer`));
        const done = await page('POST', path);
        assert.equal(done.status, 200);
        assert.match(done.html, /<h1 class="ok">Verified<\/h1>/);
        assert.deepEqual(await api.kyc(account), { status: 200, body: { success: true, error: '', kyc_verify: true, money_limit: '3000.00', kyc_url: '' } });
        assert.match((await page('GET', path)).html, /can receive up to 3000\.00 USD per transfer/);
      });

      it('the invitation page accepts the invitation and releases the waiting transfer', async () => {
        const account = receiver('0003', 'UG').slice(1);
        const body = transferBody({ country: 'UG', lastFour: '0003' });
        assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id, '9') });
        const status = (await api.status(body.id)).body as { status: { result: { attribute: Array<{ name: string; value: string }> } } };
        const link = status.status.result.attribute.find((a) => a.name === 'invitationUrl')!.value;
        const path = new URL(link).pathname;
        const shown = await page('GET', path);
        assert.equal(shown.status, 200);
        assert.match(shown.html, /<button type="submit">Accept and receive<\/button>/);
        assert.match((await page('GET', `/sandbox/kyc/${account}`)).html, /Not on the network yet/);
        const accepted = await page('POST', path);
        assert.equal(accepted.status, 200);
        assert.match(accepted.html, /Your wallet is open and verified\. 1 payment is on the way\./);
        await t.worker.drain();
        await expectSucceeded(t, api, body.id, '36800');
        assert.match((await page('GET', path)).html, /You are on the network/);
        await assertLedgerOk(t.service);
      });

      it('an account that is not a mobile number gets an error page', async () => {
        const shown = await page('GET', '/sandbox/invitations/12ab');
        assert.equal(shown.status, 400);
        assert.match(shown.html, /account must be the receiver phone in E\.164 digits without \+, e\.g\. 254712345678/);
      });
    });

    it('the sandbox calls refuse malformed accounts', async () => {
      assert.deepEqual(await api.accept('254202345678'), { status: 400, body: failure('invalid_phone_number', 'account is not a valid mobile number') });
      assert.deepEqual(await api.verify('x'), {
        status: 400,
        body: failure('invalid_phone_number', 'account must be the receiver phone in E.164 digits without +, e.g. 254712345678'),
      });
    });

    it('production refuses the sandbox calls and pages', async () => {
      const service = await createService({ ...t.service.config, environment: 'production' }, { db: t.store.db, clock: t.clock, log: createLogger('silent') });
      const production = await buildApp(service);
      try {
        const refusal = failure('not_found', 'This call exists in the sandbox only');
        for (const path of ['/sandbox/invitations/254712340003/accept', '/sandbox/kyc/254712340001/verify']) {
          const reply = await production.inject({ method: 'POST', url: path, headers: { 'api-key': merchant.transfer_api_key } });
          assert.equal(reply.statusCode, 404, path);
          assert.deepEqual(JSON.parse(reply.body), refusal, path);
        }
        for (const path of ['/sandbox/invitations/254712340003', '/sandbox/kyc/254712340001']) {
          const reply = await production.inject({ method: 'GET', url: path });
          assert.equal(reply.statusCode, 404, path);
          assert.match(reply.body, /This call exists in the sandbox only/);
        }
      } finally {
        await production.close();
      }
    });
  });

  describe(`sandbox network in steps of PAYRAIL_SANDBOX_DELAY_MS (${kind})`, () => {
    let t: TestApp;
    let api: Api;
    let merchant: Merchant;
    before(async () => {
      t = await createTestApp(kind, { env: { PAYRAIL_SANDBOX_DELAY_MS: String(STEP_MS) } });
      merchant = await t.newMerchant({ fundCents: 100_000 });
      api = caller(t.app, merchant.transfer_api_key);
    });
    after(async () => {
      await assertLedgerOk(t.service);
      await t.close();
    });

    const state = async (id: string) => {
      const result = ((await api.status(id)).body as { status: { result: { state: number; substate: number } } }).status.result;
      return [result.state, result.substate];
    };

    it('any other number reaches 60 one step after the network took it', async () => {
      const body = transferBody();
      await api.execute(body);
      await t.worker.drain();
      assert.deepEqual(await state(body.id), [40, 1]);
      t.clock.advance(STEP_MS - 1);
      await t.worker.drain();
      assert.deepEqual(await state(body.id), [40, 1]);
      t.clock.advance(1);
      await t.worker.drain();
      await expectSucceeded(t, api, body.id, '1292.50');
    });

    it('0005 stays at 40 for 60 steps, then 60', async () => {
      const body = transferBody({ lastFour: '0005' });
      await api.execute(body);
      await t.worker.drain();
      for (let step = 1; step < 60; step++) {
        t.clock.advance(STEP_MS);
        await t.worker.drain();
      }
      t.clock.advance(STEP_MS - 1);
      await t.worker.drain();
      assert.deepEqual(await state(body.id), [40, 1], 'still processing 1 ms before the 60th step');
      t.clock.advance(1);
      await t.worker.drain();
      assert.deepEqual(await events(t.service, merchant.merchant_id, body.id), [
        [0, 0],
        [40, 1],
        [60, 0],
      ]);
      await expectSucceeded(t, api, body.id, '1292.50');
    });
  });
}
