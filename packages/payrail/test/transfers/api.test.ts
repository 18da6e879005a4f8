// The transfer API over HTTP (app.inject), on both stores: every endpoint's
// exact success body, every validation of docs/interface-spec.md section 4 behaviour 2 with the
// error code and HTTP status of docs/api-decisions.md section 9, phone forms, no coercion,
// quotes, funds, duplicates and authentication.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Tx } from '../../src/store/db.ts';
import { loadConfig } from '../../src/config.ts';
import { setOverdraft } from '../../src/flows/merchants/merchants.ts';
import { buildApp, type App } from '../../src/http/app.ts';
import { createLogger } from '../../src/log.ts';
import { createService } from '../../src/runtime.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS, tempDir } from '../helpers/stores.ts';
import {
  assertLedgerOk,
  balances,
  caller,
  CORRIDORS,
  created,
  failure,
  newTransferId,
  notFound,
  receiver,
  SENDER,
  statusBody,
  transferBody,
} from '../helpers/transfers.ts';

const QUOTE_LIFETIME_MS = 15 * 60 * 1000;

function checked(fxRate: string, receivedAmount: string, receiverStatus = 'registered'): unknown {
  return {
    success: true,
    error: '',
    attribute: [
      { name: 'fx_rate', value: fxRate },
      { name: 'receivedAmount', value: receivedAmount },
      { name: 'receiverStatus', value: receiverStatus },
    ],
  };
}

for (const kind of STORE_KINDS) {
  describe(`transfer API (${kind})`, () => {
    let t: TestApp;
    let api: ReturnType<typeof caller>;
    let merchant: Awaited<ReturnType<TestApp['newMerchant']>>;

    before(async () => {
      t = await createTestApp(kind);
      merchant = await t.newMerchant({ fundCents: 1_000_000 });
      api = caller(t.app, merchant.transfer_api_key);
    });
    after(async () => {
      await assertLedgerOk(t.service);
      await t.close();
    });

    it('check returns fx_rate, receivedAmount in the receiver currency minor units, and receiverStatus, for every corridor', async () => {
      const expected: Record<string, [string, string]> = {
        KE: ['129.25', '1292.50'],
        NG: ['1530.50', '15305.00'],
        PH: ['58.10', '581.00'],
        GH: ['15.40', '154.00'],
        UG: ['3680', '36800'],
        EG: ['48.55', '485.50'],
      };
      for (const [country, [rate, received]] of Object.entries(expected)) {
        const reply = await api.check(transferBody({ country }));
        assert.deepEqual(reply, { status: 200, body: checked(rate, received) }, country);
      }
    });

    it('rounds receivedAmount half up to the currency minor units', async () => {
      assert.deepEqual(await api.check(transferBody({ country: 'UG', amount: '1.01' })), { status: 200, body: checked('3680', '3717') });
      assert.deepEqual(await api.check(transferBody({ country: 'EG', amount: '1.03' })), { status: 200, body: checked('48.55', '50.01') });
      assert.deepEqual(await api.check(transferBody({ country: 'KE', amount: '1.01' })), { status: 200, body: checked('129.25', '130.54') });
    });

    it('check moves no money and does not look at funds', async () => {
      const poor = await t.newMerchant({ fundCents: 0 });
      const before = await balances(t.service, poor.merchant_id);
      assert.deepEqual(await caller(t.app, poor.transfer_api_key).check(transferBody({ amount: '2500.00' })), {
        status: 200,
        body: checked('129.25', '323125.00'),
      });
      assert.deepEqual(await balances(t.service, poor.merchant_id), before);
    });

    it('execute creates the transfer in state 0, debits available into in flight, and status follows it to 60', async () => {
      const body = transferBody({ amount: '25.50' });
      const start = await balances(t.service, merchant.merchant_id);
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
      assert.deepEqual(await balances(t.service, merchant.merchant_id), { ...start, available: start.available - 2550, in_flight: start.in_flight + 2550 });
      assert.deepEqual(await api.status(body.id), {
        status: 200,
        body: statusBody(body.id, { state: 0, substate: 0, final: 0, serverTimeMs: t.clock.nowMs() }),
      });
      await t.worker.drain();
      const reply = await api.status(body.id);
      const result = (reply.body as { status: { result: { trans: string } } }).status.result;
      assert.match(result.trans, /^SBX-\d+-[0-9a-z]{1,20}$/);
      assert.deepEqual(reply, {
        status: 200,
        body: statusBody(body.id, { state: 60, substate: 0, final: 1, serverTimeMs: t.clock.nowMs(), trans: result.trans, sum_prov: '3295.88' }),
      });
      assert.deepEqual(await balances(t.service, merchant.merchant_id), { ...start, available: start.available - 2550, paid_out: start.paid_out + 2550 });
      const balance = await api.balance();
      assert.deepEqual(balance, { status: 200, body: { success: true, error: '', balance: { balance: start.available - 2550, overdraft: 0 } } });
    });

    it("status of an unknown id, a non-digit id or another merchant's id is the -2 execute shape with HTTP 200", async () => {
      assert.deepEqual(await api.status('424242424242'), { status: 200, body: notFound('424242424242') });
      assert.deepEqual(await api.status('abc'), { status: 200, body: notFound('abc') });
      const other = await t.newMerchant({ fundCents: 10_000 });
      const body = transferBody();
      assert.deepEqual(await caller(t.app, other.transfer_api_key).execute(body), { status: 200, body: created(body.id) });
      assert.deepEqual(await api.status(body.id), { status: 200, body: notFound(body.id) });
    });

    it('status reads arriving together each answer their own transfer (one statement for them all on PostgreSQL)', async () => {
      // An app of its own: a batch key's first runAll serves it from then on, so the count is wrapped in before any status read.
      const fresh = await createTestApp(kind);
      const groupSizes: number[] = [];
      const db = fresh.service.db;
      const batched = db.batched?.bind(db);
      if (batched !== undefined) {
        db.batched = (key, item, runAll) =>
          batched(key, item, (tx: Tx, items) => {
            if (key === 'transfer.status') groupSizes.push(items.length);
            return runAll(tx, items);
          });
      }
      try {
        const me = await fresh.newMerchant({ fundCents: 10_000 });
        const other = await fresh.newMerchant({ fundCents: 10_000 });
        const api = caller(fresh.app, me.transfer_api_key);
        const mine = [transferBody({ amount: '1.00' }), transferBody({ amount: '2.00' }), transferBody({ amount: '3.00' })];
        const theirs = transferBody({ amount: '4.00' });
        for (const body of mine) assert.equal((await api.execute(body)).status, 200);
        assert.equal((await caller(fresh.app, other.transfer_api_key).execute(theirs)).status, 200);
        await fresh.worker.drain();
        const ids = [mine[2]!.id, '424242424242', mine[0]!.id, theirs.id, mine[1]!.id, mine[0]!.id];
        // One read first, so the key's credential is cached: otherwise each request of the burst reads it
        // (the merchant's keys were just written), and the reads' answers, coming back in turns of their
        // own, could send the status reads to the store one turn apart.
        await api.status(mine[0]!.id);
        const replies = await Promise.all(ids.map((id) => api.status(id)));
        const sums = replies.map((reply, n) => {
          if (ids[n] === '424242424242' || ids[n] === theirs.id) {
            assert.deepEqual(reply, { status: 200, body: notFound(ids[n]!) });
            return null;
          }
          const result = (reply.body as { status: { result: { id: string; state: number; sum_prov: string } } }).status.result;
          assert.equal(result.id, ids[n]);
          assert.equal(result.state, 60);
          return result.sum_prov;
        });
        // Each transfer's own amount (1.00, 2.00, 3.00 at the corridor's rate), in the order asked.
        assert.deepEqual(sums, ['387.75', null, '129.25', null, '258.50', '129.25']);
        if (batched !== undefined) assert.ok(Math.max(...groupSizes) > 1, `several status reads shared a statement: ${groupSizes.join(',')}`);
      } finally {
        await fresh.close();
      }
    });

    it('accepts every phone form: E.164 with +, digits without +, and national numbers (receiver in receiver_country, sender as US)', async () => {
      const forms: Array<[string, string]> = [
        ['+14155552671', '+254712345678'],
        ['14155552671', '254712345678'],
        ['4155552671', '0712345678'],
        ['+14155552671', '712345678'],
      ];
      for (const [sender, to] of forms) {
        const body = transferBody({ sender_phone: sender, receiver_phone: to });
        assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) }, `${sender} -> ${to}`);
        const row = await t.service.db.read((tx) =>
          tx.get<{ sender_phone: string; receiver_phone: string }>('SELECT sender_phone, receiver_phone FROM transfers WHERE merchant_id = ? AND id = ?', [
            merchant.merchant_id,
            body.id,
          ]),
        );
        assert.deepEqual(row, { sender_phone: '+14155552671', receiver_phone: '+254712345678' });
      }
      // A Ghanaian national number is read in receiver_country GH.
      assert.deepEqual(await api.check(transferBody({ country: 'GH', receiver_phone: '0241235678' })), { status: 200, body: checked('15.40', '154.00') });
      await t.worker.drain();
    });

    describe('refusals, each with its code, HTTP status and the field named', () => {
      const cases: Array<[string, (b: Record<string, unknown>) => unknown, number, string, string]> = [
        ['missing field', (b) => ({ ...b, service: undefined }), 400, 'invalid_request', 'service is required'],
        ['missing attribute array', (b) => ({ ...b, attribute: undefined }), 400, 'invalid_request', 'attribute is required'],
        ['unknown field', (b) => ({ ...b, currency: 'USD' }), 400, 'invalid_request', 'unknown field currency'],
        ['amount as a number', (b) => ({ ...b, amount: 10 }), 400, 'invalid_amount', 'amount must be of type string'],
        [
          'amount with 3 decimals',
          (b) => ({ ...b, amount: '5.001' }),
          400,
          'invalid_amount',
          'amount must be a positive decimal number of dollars with at most 2 decimals',
        ],
        ['amount zero', (b) => ({ ...b, amount: '0.00' }), 400, 'invalid_amount', 'amount must be greater than zero'],
        [
          'negative amount',
          (b) => ({ ...b, amount: '-5' }),
          400,
          'invalid_amount',
          'amount must be a positive decimal number of dollars with at most 2 decimals',
        ],
        [
          'amount with exponent',
          (b) => ({ ...b, amount: '1e3' }),
          400,
          'invalid_amount',
          'amount must be a positive decimal number of dollars with at most 2 decimals',
        ],
        [
          'amount not a number',
          (b) => ({ ...b, amount: 'NaN' }),
          400,
          'invalid_amount',
          'amount must be a positive decimal number of dollars with at most 2 decimals',
        ],
        ['amount below the corridor minimum', (b) => ({ ...b, amount: '0.99' }), 400, 'invalid_amount', 'amount must be at least 1.00 for service 1001'],
        ['amount above the corridor maximum', (b) => ({ ...b, amount: '2500.01' }), 400, 'invalid_amount', 'amount must be at most 2500.00 for service 1001'],
        ['id with letters', (b) => ({ ...b, id: '12a' }), 400, 'invalid_request', 'id must be 1 to 40 digits'],
        ['id as a number', (b) => ({ ...b, id: 12 }), 400, 'invalid_request', 'id must be of type string'],
        ['unknown service', (b) => ({ ...b, service: '9999' }), 400, 'invalid_request', 'service "9999" is not a supported corridor'],
        ['country of another corridor', (b) => ({ ...b, receiver_country: 'NG' }), 400, 'invalid_request', 'receiver_country must be KE for service 1001'],
        ['currency of another corridor', (b) => ({ ...b, receiver_currency: 'USD' }), 400, 'invalid_request', 'receiver_currency must be KES for service 1001'],
        ['sender phone that is no number', (b) => ({ ...b, sender_phone: '12345' }), 400, 'invalid_phone_number', 'sender_phone is not a valid mobile number'],
        [
          'sender phone with punctuation',
          (b) => ({ ...b, sender_phone: '+1-415-555-2671' }),
          400,
          'invalid_phone_number',
          'sender_phone must contain digits only, with an optional leading +',
        ],
        ['sender phone as a number', (b) => ({ ...b, sender_phone: 14155552671 }), 400, 'invalid_phone_number', 'sender_phone must be of type string'],
        ['receiver landline', (b) => ({ ...b, receiver_phone: '+254202345678' }), 400, 'invalid_phone_number', 'receiver_phone is not a valid mobile number'],
        [
          'receiver of another country',
          (b) => ({ ...b, receiver_phone: receiver('5678', 'GH') }),
          400,
          'invalid_request',
          'receiver_phone is a number of GH, not of KE (service 1001)',
        ],
        [
          'attribute value as a number',
          (b) => ({ ...b, attribute: [{ name: 'receiverName', value: 7 }] }),
          400,
          'invalid_request',
          'attribute.0.value must be of type string',
        ],
        [
          'attribute given twice',
          (b) => ({
            ...b,
            attribute: [
              { name: 'note', value: 'a' },
              { name: 'note', value: 'b' },
            ],
          }),
          400,
          'invalid_request',
          'attribute note is given twice',
        ],
        [
          'malformed gatewayId',
          (b) => ({ ...b, attribute: [{ name: 'gatewayId', value: 'ch_1' }] }),
          400,
          'invalid_request',
          'attribute gatewayId must be the reference number (digits) of a card payin',
        ],
      ];
      for (const [name, mutate, status, code, message] of cases) {
        it(`${name}: ${code}`, async () => {
          const body = mutate(transferBody() as unknown as Record<string, unknown>);
          assert.deepEqual(await api.check(body), { status, body: failure(code, message) }, 'check');
          assert.deepEqual(await api.execute(body), { status, body: failure(code, message) }, 'execute');
        });
      }

      it('required attributes per corridor, with their allowed values', async () => {
        const without = (country: string, name: string) => transferBody({ country, attribute: CORRIDORS[country]!.attribute.filter((a) => a.name !== name) });
        const withValue = (country: string, name: string, value: string) =>
          transferBody({ country, attribute: CORRIDORS[country]!.attribute.map((a) => (a.name === name ? { name, value } : a)) });
        const expectations: Array<[unknown, string]> = [
          [without('NG', 'receiverBankName'), 'attribute receiverBankName is required for service 1002'],
          [without('NG', 'receiverFirstName'), 'attribute receiverFirstName is required for service 1002'],
          [withValue('NG', 'receiverAccType', '2'), 'attribute receiverAccType must be 1 for service 1002'],
          [without('PH', 'receiverName'), 'attribute receiverName is required for service 1003'],
          [withValue('PH', 'receiverName', '  '), 'attribute receiverName is required for service 1003'],
          [without('GH', 'receiverIdNumber'), 'attribute receiverIdNumber is required for service 1004'],
          [withValue('GH', 'receiverIdType', '4'), 'attribute receiverIdType must be 2 or 3 for service 1004'],
          [without('UG', 'receiverName'), 'attribute receiverName is required for service 1005'],
          [without('EG', 'receiverName'), 'attribute receiverName is required for service 1271'],
        ];
        for (const [body, message] of expectations) {
          assert.deepEqual(await api.check(body), { status: 400, body: failure('invalid_request', message) }, message);
          assert.deepEqual(await api.execute(body), { status: 400, body: failure('invalid_request', message) }, message);
        }
        assert.deepEqual(await api.check(withValue('GH', 'receiverIdType', '3')), { status: 200, body: checked('15.40', '154.00') });
        assert.deepEqual(await api.check(transferBody({ country: 'NG', amount: '4.99' })), {
          status: 400,
          body: failure('invalid_amount', 'amount must be at least 5.00 for service 1002'),
        });
      });

      it('a malformed JSON body is invalid_request, never a crash', async () => {
        for (const url of ['/api/checkTransfer', '/api/transfer']) {
          const response = await t.app.inject({
            method: 'POST',
            url,
            headers: { 'api-key': merchant.transfer_api_key, 'content-type': 'application/json' },
            payload: '{"id": "1",',
          });
          assert.equal(response.statusCode, 400);
          assert.deepEqual(JSON.parse(response.body), failure('invalid_request', 'request body is not valid JSON'));
        }
      });

      it('a body with a __proto__ key is refused as such, and an empty body as a missing object', async () => {
        const send = (payload: string) =>
          t.app.inject({
            method: 'POST',
            url: '/api/transfer',
            headers: { 'api-key': merchant.transfer_api_key, 'content-type': 'application/json' },
            payload,
          });
        const proto = await send('{"__proto__":{"x":1},"id":"1"}');
        assert.equal(proto.statusCode, 400);
        assert.deepEqual(
          JSON.parse(proto.body),
          failure('invalid_request', 'request body may not contain a "__proto__" key or a "constructor" key holding "prototype"'),
        );
        const constructorKey = await send('{"a":{"constructor":{"prototype":{}}}}');
        assert.equal(JSON.parse(constructorKey.body).error.code, 'invalid_request');
        assert.match(JSON.parse(constructorKey.body).error.message, /constructor/);
        const sendAs = (headers: Record<string, string>) =>
          t.app.inject({
            method: 'POST',
            url: '/api/transfer',
            headers: { 'api-key': merchant.transfer_api_key, 'content-type': 'application/json', ...headers },
            payload: '{"id":"1"}',
          });
        assert.deepEqual(
          JSON.parse((await sendAs({ 'content-encoding': 'gzip' })).body),
          failure('invalid_request', 'Content-Encoding gzip is not supported; send the body uncompressed'),
        );
        assert.deepEqual(
          JSON.parse((await sendAs({ 'content-type': 'application/json; charset=utf-16' })).body),
          failure('invalid_request', 'charset utf-16 is not supported; send UTF-8 JSON'),
        );
        // UTF-8 named or not, and no encoding: read (and refused here for the missing fields, not the body).
        const readable: Array<Record<string, string>> = [{ 'content-type': 'application/json; charset=UTF-8' }, { 'content-encoding': 'identity' }];
        for (const headers of readable) {
          assert.match(JSON.parse((await sendAs(headers)).body).error.message, /is required/);
        }
        for (const empty of ['', '  ']) {
          const response = await send(empty);
          assert.equal(response.statusCode, 400);
          assert.deepEqual(JSON.parse(response.body), failure('invalid_request', 'body must be of type object'));
        }
      });

      it('a refused execute changes nothing', async () => {
        const start = await balances(t.service, merchant.merchant_id);
        const count = async () => (await t.service.db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM transfers')))!.n;
        const transfers = await count();
        await api.execute(transferBody({ amount: '0.50' }));
        await api.execute(transferBody({ service: '1003' }));
        assert.deepEqual(await balances(t.service, merchant.merchant_id), start);
        assert.equal(await count(), transfers);
      });
    });

    it('insufficient_funds when balance + overdraft does not cover the amount; the overdraft counts', async () => {
      const small = await t.newMerchant({ fundCents: 1000 });
      const small_api = caller(t.app, small.transfer_api_key);
      const body = transferBody({ amount: '10.01' });
      assert.deepEqual(await small_api.execute(body), { status: 400, body: failure('insufficient_funds', 'balance + overdraft does not cover amount 10.01') });
      assert.deepEqual(await small_api.status(body.id), { status: 200, body: notFound(body.id) }, 'nothing was created');
      await setOverdraft({ db: t.service.db, environment: 'sandbox', clock: t.clock }, { merchantId: small.merchant_id, overdraftCents: 1 });
      assert.deepEqual(await small_api.execute(body), { status: 200, body: created(body.id) }, 'the same id is free after a refusal');
      assert.deepEqual(await small_api.balance(), { status: 200, body: { success: true, error: '', balance: { balance: -1, overdraft: 1 } } });
    });

    it('duplicate_transfer for a reused id, nothing changes; another merchant may use the same id', async () => {
      const body = transferBody();
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
      const start = await balances(t.service, merchant.merchant_id);
      const message = `id ${body.id} was already used for a transfer`;
      assert.deepEqual(await api.execute(body), { status: 400, body: failure('duplicate_transfer', message) });
      assert.deepEqual(await api.execute({ ...body, amount: '11.00' }), { status: 400, body: failure('duplicate_transfer', message) });
      assert.deepEqual(await balances(t.service, merchant.merchant_id), start);
      const other = await t.newMerchant({ fundCents: 10_000 });
      assert.deepEqual(await caller(t.app, other.transfer_api_key).execute(body), { status: 200, body: created(body.id) });
      await t.worker.drain();
    });

    describe('KYC', () => {
      it('answers each sandbox receiver as the catalogue says', async () => {
        const url = (digits: string) => `${t.service.config.publicUrl}/sandbox/kyc/${digits}`;
        const kyc = (verified: boolean, limit: string, kycUrl: string) => ({
          status: 200,
          body: { success: true, error: '', kyc_verify: verified, money_limit: limit, kyc_url: kycUrl },
        });
        assert.deepEqual(await api.kyc('254712340001'), kyc(false, '0', url('254712340001')));
        assert.deepEqual(await api.kyc('254712340002'), kyc(false, '100.00', url('254712340002')));
        assert.deepEqual(await api.kyc('254712340003'), { status: 404, body: failure('account_not_found', 'no receiver account for 254712340003') });
        for (const lastFour of ['0004', '0005', '0006', '5678']) {
          assert.deepEqual(await api.kyc(`25471234${lastFour}`), kyc(true, '3000.00', ''), lastFour);
        }
      });

      it('tolerates a + in the path, encoded or not', async () => {
        const verified = { status: 200, body: { success: true, error: '', kyc_verify: true, money_limit: '3000.00', kyc_url: '' } };
        assert.deepEqual(await api.kyc('%2B254712345678'), verified);
        assert.deepEqual(await api.kyc('+254712345678'), verified);
      });

      it('refuses numbers that are not valid mobile numbers, and knows no receivers outside the corridors', async () => {
        const digitsOnly = 'account must be the receiver phone in E.164 digits without +, e.g. 254712345678';
        assert.deepEqual(await api.kyc('0712345678x'), { status: 400, body: failure('invalid_phone_number', digitsOnly) });
        assert.deepEqual(await api.kyc('254202345678'), { status: 400, body: failure('invalid_phone_number', 'account is not a valid mobile number') });
        assert.deepEqual(await api.kyc('14155552671'), {
          status: 404,
          body: failure('account_not_found', 'no receiver account for 14155552671: no corridor serves US'),
        });
      });
    });

    describe('quotes', () => {
      let altApp: App;
      before(async () => {
        // The same store and clock, with rates changed in the corridors file: as after a rate update.
        const dir = tempDir();
        const file = path.join(dir, 'corridors.json');
        const document = JSON.parse(fs.readFileSync(t.service.config.corridorsFile, 'utf8')) as { corridors: Array<{ service: string; fx_rate: string }> };
        for (const corridor of document.corridors) if (corridor.service === '1001') corridor.fx_rate = '130';
        fs.writeFileSync(file, JSON.stringify(document));
        const config = loadConfig({ ...t.store.env, PAYRAIL_SANDBOX_DELAY_MS: '0', PAYRAIL_WORKER: 'off', PAYRAIL_CORRIDORS_FILE: file });
        altApp = await buildApp(await createService(config, { db: t.store.db, clock: t.clock, log: createLogger('silent') }));
      });
      after(async () => {
        await altApp.close();
      });

      const sumProvOf = async (id: string) => {
        await t.worker.drain();
        const reply = await api.status(id);
        return (reply.body as { status: { result: { sum_prov: string } } }).status.result.sum_prov;
      };

      it('execute honours the rate of a check of the same id for 15 minutes', async () => {
        const body = transferBody({ amount: '10.00' });
        assert.deepEqual(await api.check(body), { status: 200, body: checked('129.25', '1292.50') });
        t.clock.advance(QUOTE_LIFETIME_MS);
        const alt = caller(altApp, merchant.transfer_api_key);
        assert.deepEqual(await alt.check(transferBody({ amount: '10.00' })), { status: 200, body: checked('130', '1300.00') }, 'the rate has changed');
        assert.deepEqual(await alt.execute(body), { status: 200, body: created(body.id) });
        assert.equal(await sumProvOf(body.id), '1292.50');
      });

      it('executes arriving together each honour their own quote, and only theirs', async () => {
        const quoted = [transferBody({ amount: '10.00' }), transferBody({ amount: '10.00' })];
        for (const body of quoted) assert.deepEqual(await api.check(body), { status: 200, body: checked('129.25', '1292.50') });
        const unquoted = [transferBody({ amount: '10.00' }), transferBody({ amount: '10.00' })];
        const alt = caller(altApp, merchant.transfer_api_key);
        const order = [unquoted[0]!, quoted[0]!, unquoted[1]!, quoted[1]!];
        const replies = await Promise.all(order.map((body) => alt.execute(body)));
        assert.deepEqual(
          replies,
          order.map((body) => ({ status: 200, body: created(body.id) })),
        );
        const sums: string[] = [];
        for (const body of order) sums.push(await sumProvOf(body.id));
        assert.deepEqual(sums, ['1300.00', '1292.50', '1300.00', '1292.50']);
      });

      it('an expired quote, or one for another amount, is not honoured', async () => {
        const alt = caller(altApp, merchant.transfer_api_key);
        const late = transferBody({ amount: '10.00' });
        await api.check(late);
        t.clock.advance(QUOTE_LIFETIME_MS + 1);
        assert.deepEqual(await alt.execute(late), { status: 200, body: created(late.id) });
        assert.equal(await sumProvOf(late.id), '1300.00');

        const changed = transferBody({ amount: '10.00' });
        await api.check(changed);
        assert.deepEqual(await alt.execute({ ...changed, amount: '20.00' }), { status: 200, body: created(changed.id) });
        assert.equal(await sumProvOf(changed.id), '2600.00');
      });

      it('a quoted execute goes ahead while the FX provider fails; one without a quote is refused and writes nothing', async () => {
        const down = await buildApp({
          ...t.service,
          providers: { ...t.service.providers, fx: { rate: () => Promise.reject(new Error('FX provider unreachable')) } },
        });
        try {
          const broken = caller(down, merchant.transfer_api_key);
          const quoted = transferBody({ amount: '10.00' });
          await api.check(quoted);
          assert.deepEqual(await broken.execute(quoted), { status: 200, body: created(quoted.id) });
          assert.equal(await sumProvOf(quoted.id), '1292.50');

          const before = await api.balance();
          const unquoted = transferBody({ amount: '10.00' });
          // behaviour.md section 16: an unreachable provider is service_unavailable (503), not a 500.
          const refused = await broken.execute(unquoted);
          assert.deepEqual(refused, {
            status: 503,
            body: failure('service_unavailable', 'the FX provider (KES rate) did not answer; nothing was written; retry'),
          });
          assert.deepEqual(await api.status(unquoted.id), { status: 200, body: notFound(unquoted.id) }, 'no transfer was made');
          assert.deepEqual(await api.balance(), before, 'no money moved');
        } finally {
          await down.close();
        }
      });

      it('expired quotes are swept by the worker', async () => {
        const body = transferBody();
        await api.check(body);
        t.clock.advance(QUOTE_LIFETIME_MS + 60_001);
        await t.worker.drain();
        const left = await t.service.db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM quotes WHERE expires_at_ms < ?', [t.clock.nowMs()]));
        assert.equal(Number(left!.n), 0);
      });
    });

    describe('authentication', () => {
      const endpoints = () => [
        { method: 'POST' as const, url: '/api/checkTransfer', payload: transferBody() },
        { method: 'POST' as const, url: '/api/transfer', payload: transferBody() },
        { method: 'GET' as const, url: '/api/status/1' },
        { method: 'GET' as const, url: '/api/kyc/254712345678' },
        { method: 'GET' as const, url: '/api/agent_balance' },
        { method: 'POST' as const, url: '/sandbox/invitations/254712340003/accept' },
        { method: 'POST' as const, url: '/sandbox/kyc/254712340001/verify' },
      ];

      it('a missing or invalid API-KEY is 401 authentication_error on every endpoint, before the body is looked at', async () => {
        for (const endpoint of endpoints()) {
          const missing = await t.app.inject({ ...endpoint, payload: endpoint.payload ? { ...endpoint.payload, amount: 5 } : undefined });
          assert.equal(missing.statusCode, 401, endpoint.url);
          assert.deepEqual(JSON.parse(missing.body), failure('authentication_error', 'invalid or missing API-KEY'), endpoint.url);
          const wrong = await t.app.inject({ ...endpoint, headers: { 'api-key': `sbx_tk_${'A'.repeat(16)}_${'b'.repeat(32)}` } });
          assert.equal(wrong.statusCode, 401, endpoint.url);
          assert.deepEqual(JSON.parse(wrong.body), failure('authentication_error', 'invalid or missing API-KEY'), endpoint.url);
        }
      });

      it('a payin source key as API-KEY is 403 authentication_error', async () => {
        for (const endpoint of endpoints()) {
          const reply = await t.app.inject({ ...endpoint, headers: { 'api-key': merchant.source.api_key } });
          assert.equal(reply.statusCode, 403, endpoint.url);
          assert.deepEqual(
            JSON.parse(reply.body),
            failure('authentication_error', 'this credential cannot call the transfer API; use the transfer API key'),
            endpoint.url,
          );
        }
      });
    });

    it('internal_server_error (500) when the store fails, in the transfer envelope', async () => {
      const body = transferBody();
      await injectStoreFailure(t, ['quotes', 'transfers']);
      try {
        assert.deepEqual(await api.check(body), { status: 500, body: failure('internal_server_error', 'Server error; retry') });
        assert.deepEqual(await api.execute(body), { status: 500, body: failure('internal_server_error', 'Server error; retry') });
      } finally {
        await removeStoreFailure(t, ['quotes', 'transfers']);
      }
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
      await t.worker.drain();
    });

    it('transfers to the same id by check then execute, sender as given', async () => {
      const id = newTransferId();
      const body = transferBody({ id, sender_phone: SENDER });
      assert.deepEqual(await api.check(body), { status: 200, body: checked('129.25', '1292.50') });
      assert.deepEqual(await api.execute(body), { status: 200, body: created(id) });
      await t.worker.drain();
    });
  });
}

/** Makes every insert into `tables` fail inside the database, as a broken store would. */
async function injectStoreFailure(t: TestApp, tables: string[]): Promise<void> {
  await t.service.db.write(async (tx) => {
    if (tx.dialect === 'postgres') {
      await tx.run("CREATE FUNCTION payrail_test_fail() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RAISE EXCEPTION ''store unavailable''; END'");
      for (const table of tables) await tx.run(`CREATE TRIGGER fail_${table} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION payrail_test_fail()`);
    } else {
      for (const table of tables) await tx.run(`CREATE TRIGGER fail_${table} BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'store unavailable'); END`);
    }
  });
}

async function removeStoreFailure(t: TestApp, tables: string[]): Promise<void> {
  await t.service.db.write(async (tx) => {
    for (const table of tables) await tx.run(tx.dialect === 'postgres' ? `DROP TRIGGER fail_${table} ON ${table}` : `DROP TRIGGER fail_${table}`);
    if (tx.dialect === 'postgres') await tx.run('DROP FUNCTION payrail_test_fail()');
  });
}
