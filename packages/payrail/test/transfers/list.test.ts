// GET /api/transfers (docs/api-decisions.md sections 12 and 14) on both
// stores: newest first, each item the status result plus amount, receiver,
// corridor and creation time; filters by state and creation time; cursor
// pagination that neither skips nor repeats; refusals naming the parameter.
// Also the links of section 12: a linked transfer shows gatewayId in its
// status, and a charge shows the transfers it funds in custom_fields.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setPayoutsMustLink } from '../../src/flows/merchants/merchants.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basicOf, chargeBody, getTransaction, nonceFor, postCharge } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { approvedCharge, caller, created, failure, receiver, transferBody } from '../helpers/transfers.ts';

type Merchant = Awaited<ReturnType<TestApp['newMerchant']>>;

interface Listed {
  success: true;
  error: '';
  transfers: Array<Record<string, unknown> & { id: string }>;
  has_more: boolean;
}

const gateway = (pk: number) => [{ name: 'gatewayId', value: String(pk) }];

for (const kind of STORE_KINDS) {
  describe(`transfer list (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(async () => {
      await t.close();
    });

    const list = async (merchant: Merchant, query = '') => {
      const response = await t.app.inject({ method: 'GET', url: `/api/transfers${query}`, headers: { 'api-key': merchant.transfer_api_key } });
      return { status: response.statusCode, body: response.json() as Listed };
    };
    /** Executes transfers one second apart on the test clock; returns their ids, oldest first. */
    const sendSome = async (merchant: Merchant, count: number, overrides: Parameters<typeof transferBody>[0] = {}) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i += 1) {
        t.clock.advance(1_000);
        const body = transferBody(overrides);
        assert.deepEqual(await caller(t.app, merchant.transfer_api_key).execute(body), { status: 200, body: created(body.id) });
        ids.push(body.id);
      }
      return ids;
    };

    it("lists the merchant's transfers newest first, each as its status plus what was sent", async () => {
      const merchant = await t.newMerchant({ fundCents: 100_000 });
      const startMs = t.clock.nowMs();
      const [older] = await sendSome(merchant, 1, { country: 'PH', amount: '12.50', lastFour: '7788' });
      const [newer] = await sendSome(merchant, 1, { amount: '3.00' });
      const listed = await list(merchant);
      assert.equal(listed.status, 200);
      assert.deepEqual(listed.body, {
        success: true,
        error: '',
        transfers: [
          {
            id: newer,
            state: 0,
            substate: 0,
            final: 0,
            code: 0,
            attribute: [],
            server_time: new Date(t.clock.nowMs()).toISOString(),
            trans: null,
            sum_prov: null,
            amount: '3.00',
            receiver_phone: receiver('5678'),
            service: '1001',
            receiver_country: 'KE',
            receiver_currency: 'KES',
            created_at: new Date(startMs + 2_000).toISOString(),
          },
          {
            id: older,
            state: 0,
            substate: 0,
            final: 0,
            code: 0,
            attribute: [],
            server_time: new Date(t.clock.nowMs()).toISOString(),
            trans: null,
            sum_prov: null,
            amount: '12.50',
            receiver_phone: receiver('7788', 'PH'),
            service: '1003',
            receiver_country: 'PH',
            receiver_currency: 'PHP',
            created_at: new Date(startMs + 1_000).toISOString(),
          },
        ],
        has_more: false,
      });
      // Each item's status part is exactly what GET /api/status/:id answers.
      const status = await caller(t.app, merchant.transfer_api_key).status(newer!);
      const {
        amount: _a,
        receiver_phone: _r,
        service: _s,
        receiver_country: _c,
        receiver_currency: _cu,
        created_at: _t,
        ...statusPart
      } = listed.body.transfers[0]!;
      assert.deepEqual(status.body, { success: true, error: '', status: { result: statusPart } });
    });

    it('pages with limit and starting_after, never skipping or repeating, also within one millisecond', async () => {
      const merchant = await t.newMerchant({ fundCents: 100_000 });
      const spread = await sendSome(merchant, 3);
      // Three more in the same millisecond: the cursor orders them by creation too.
      const api = caller(t.app, merchant.transfer_api_key);
      const sameMs: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        const body = transferBody();
        await api.execute(body);
        sameMs.push(body.id);
      }
      const newestFirst = [...spread, ...sameMs].reverse();
      const seen: string[] = [];
      let query = '?limit=4';
      const pages: boolean[] = [];
      for (let page = 0; page < 5; page += 1) {
        const { status, body } = await list(merchant, query);
        assert.equal(status, 200);
        seen.push(...body.transfers.map((item) => item.id));
        pages.push(body.has_more);
        if (!body.has_more) break;
        query = `?limit=4&starting_after=${body.transfers.at(-1)!.id}`;
      }
      assert.deepEqual(pages, [true, false]);
      assert.deepEqual(seen, newestFirst);
      // And back with ending_before, from the oldest transfer: each page newest first, the nearest newer ones.
      const back: string[][] = [];
      const backMore: boolean[] = [];
      let before = newestFirst.at(-1)!;
      for (let page = 0; page < 5; page += 1) {
        const { status, body } = await list(merchant, `?limit=4&ending_before=${before}`);
        assert.equal(status, 200);
        back.push(body.transfers.map((item) => item.id));
        backMore.push(body.has_more);
        if (!body.has_more) break;
        before = body.transfers[0]!.id;
      }
      const older = newestFirst.slice(0, -1);
      assert.deepEqual(back, [older.slice(-4), older.slice(0, -4)]);
      assert.deepEqual(backMore, [true, false]);
      // The page before the newest is empty.
      assert.deepEqual((await list(merchant, `?ending_before=${newestFirst[0]}`)).body, { success: true, error: '', transfers: [], has_more: false });
      // Ten per page by default.
      const more = await sendSome(merchant, 5);
      const first = await list(merchant);
      assert.deepEqual([first.body.transfers.length, first.body.has_more, first.body.transfers[0]!.id], [10, true, more.at(-1)]);
      const max = await list(merchant, '?limit=100');
      assert.deepEqual([max.body.transfers.length, max.body.has_more], [11, false]);
    });

    it('filters by state and by creation time (both bounds inclusive)', async () => {
      const merchant = await t.newMerchant({ fundCents: 100_000 });
      const [failing] = await sendSome(merchant, 1, { lastFour: '0004' });
      const [succeeding] = await sendSome(merchant, 1);
      const middleMs = t.clock.nowMs();
      await t.worker.drain();
      const [fresh] = await sendSome(merchant, 1);
      const ids = async (query: string) => (await list(merchant, query)).body.transfers.map((item) => item.id);
      assert.deepEqual(await ids('?state=80'), [failing]);
      assert.deepEqual(await ids('?state=60'), [succeeding]);
      assert.deepEqual(await ids('?state=0'), [fresh]);
      assert.deepEqual(await ids('?state=40'), []);
      const at = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
      assert.deepEqual(await ids(`?created_from=${at(middleMs)}`), [fresh, succeeding]);
      assert.deepEqual(await ids(`?created_to=${at(middleMs)}`), [succeeding, failing]);
      assert.deepEqual(await ids(`?created_from=${at(middleMs)}&created_to=${at(middleMs)}`), [succeeding]);
      // Any zone names the same instant.
      const offset = new Date(middleMs + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
      assert.deepEqual(await ids(`?created_from=${encodeURIComponent(offset)}&state=60`), [succeeding]);
      const failed = (await list(merchant, '?state=80')).body.transfers[0]!;
      assert.deepEqual(
        [failed.state, failed.final, (failed.attribute as Array<{ name: string }>).map((a) => a.name)],
        [80, 1, ['provider-error-text', 'provider-error-code']],
      );
    });

    it("shows only the merchant's own transfers; another merchant's id is no cursor", async () => {
      const mine = await t.newMerchant({ fundCents: 100_000 });
      const theirs = await t.newMerchant({ fundCents: 100_000 });
      const [own] = await sendSome(mine, 1);
      const [foreign] = await sendSome(theirs, 1);
      assert.deepEqual(
        (await list(mine)).body.transfers.map((item) => item.id),
        [own],
      );
      assert.deepEqual(await list(mine, `?starting_after=${foreign}`), {
        status: 400,
        body: failure('invalid_request', `starting_after ${foreign} is not one of your transfers`),
      });
      assert.deepEqual(await list(mine, `?ending_before=${foreign}`), {
        status: 400,
        body: failure('invalid_request', `ending_before ${foreign} is not one of your transfers`),
      });
    });

    it('refuses bad parameters in the transfer API envelope, naming them; no key is 401', async () => {
      const merchant = await t.newMerchant();
      const refused: Array<[string, string]> = [
        ['?limit=0', 'limit must be an integer from 1 to 100'],
        ['?limit=101', 'limit must be an integer from 1 to 100'],
        ['?limit=ten', 'limit must be an integer from 1 to 100'],
        // Too long for a page size reads the same, whatever its length.
        ['?limit=1000', 'limit must be an integer from 1 to 100'],
        ['?limit=0010', 'limit must be an integer from 1 to 100'],
        ['?state=5', 'state must be one of 0, 40, 60, 80'],
        ['?created_from=2026-01-31', 'created_from must be an ISO 8601 timestamp with a time zone, for example 2026-01-31T00:00:00Z'],
        // A + sent unencoded arrives as a space.
        [
          '?created_from=2026-01-31T10:00:00+02:00',
          'created_from must be an ISO 8601 timestamp with a time zone, for example 2026-01-31T00:00:00Z (a + in a query string must be sent as %2B)',
        ],
        ['?created_to=2026-02-30T00:00:00Z', 'created_to must be an ISO 8601 timestamp with a time zone, for example 2026-01-31T00:00:00Z'],
        ['?created_from=2026-02-01T00:00:00Z&created_to=2026-01-01T00:00:00Z', 'created_from must not be after created_to'],
        ['?starting_after=abc', 'starting_after must be a transfer id (digits)'],
        ['?ending_before=abc', 'ending_before must be a transfer id (digits)'],
        ['?starting_after=1&ending_before=2', 'send starting_after or ending_before, not both'],
        ['?page=2', 'unknown field page'],
      ];
      for (const [query, message] of refused) {
        assert.deepEqual(await list(merchant, query), { status: 400, body: failure('invalid_request', message) }, query);
      }
      const anonymous = await t.app.inject({ method: 'GET', url: '/api/transfers' });
      assert.equal(anonymous.statusCode, 401);
      assert.equal(anonymous.json().error.code, 'authentication_error');
    });

    it('is in the OpenAPI document', async () => {
      const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
        paths: Record<string, Record<string, { parameters?: Array<{ name: string }> }>>;
      };
      const operation = document.paths['/api/transfers']?.get;
      assert.ok(operation, 'GET /api/transfers is documented');
      assert.deepEqual(operation.parameters?.map((p) => p.name).sort(), ['created_from', 'created_to', 'ending_before', 'limit', 'starting_after', 'state']);
    });

    it('a linked transfer shows gatewayId in its status and in the list; the charge lists the transfers it funds', async () => {
      const merchant = await t.newMerchant({ fundCents: 10_000 });
      const api = caller(t.app, merchant.transfer_api_key);
      const charged = await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant), { amount: 50 }));
      const reference = charged.json().reference_number as number;
      assert.deepEqual(charged.json().transaction.custom_fields, {});

      const paid = transferBody({ amount: '20.00', attribute: gateway(reference) });
      const failing = transferBody({ amount: '5.00', lastFour: '0004', attribute: gateway(reference) });
      for (const body of [paid, failing]) assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
      const fundedBy = async () => (await getTransaction(t.app, basicOf(merchant), reference)).json().transaction.custom_fields;
      assert.deepEqual(await fundedBy(), {
        transfers: [
          { id: paid.id, amount: '20.00' },
          { id: failing.id, amount: '5.00' },
        ],
      });
      await t.worker.drain();
      const paidStatus = (await api.status(paid.id)).body as { status: { result: { state: number; final: number; attribute: unknown } } };
      assert.deepEqual([paidStatus.status.result.state, paidStatus.status.result.final, paidStatus.status.result.attribute], [60, 1, gateway(reference)]);
      // The failed transfer gave its share back: the charge no longer funds it, though the transfer still names the charge.
      assert.deepEqual(await fundedBy(), { transfers: [{ id: paid.id, amount: '20.00' }] });
      const failedItem = (await list(merchant, '?state=80')).body.transfers[0]!;
      assert.deepEqual(
        (failedItem.attribute as Array<{ name: string; value: string }>).find((a) => a.name === 'gatewayId'),
        { name: 'gatewayId', value: String(reference) },
      );
      // The charge's own reply (and its idempotent replays) keep the {} they were made with; the read shows the links.
      assert.deepEqual(charged.json().transaction.custom_fields, {});
    });

    it('a transfer linked by reconciliation shows the charge it was linked to', async () => {
      const merchant = await t.newMerchant({ fundCents: 10_000 });
      await setPayoutsMustLink({ db: t.service.db, environment: 'sandbox', clock: t.clock }, { merchantId: merchant.merchant_id, on: true });
      const api = caller(t.app, merchant.transfer_api_key);
      const body = transferBody({ amount: '10.00' });
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id, '9') });
      const waiting = (await api.status(body.id)).body as { status: { result: { attribute: unknown } } };
      assert.deepEqual(waiting.status.result.attribute, [{ name: 'waitingFor', value: 'reconciliation' }]);
      const charge = await approvedCharge(t.service, merchant, 1_000, t.clock.nowMs());
      await t.worker.drain();
      const linked = (await api.status(body.id)).body as { status: { result: { state: number; attribute: unknown } } };
      assert.deepEqual([linked.status.result.state, linked.status.result.attribute], [60, gateway(charge)]);
    });
  });
}
