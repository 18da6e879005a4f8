// Payin linking (docs/api-decisions.md section 7) on both stores: gatewayId validated
// against approved charges with room, a charge funding several transfers,
// links released by failed transfers, automatic reconciliation of waiting
// transfers, and the operator's link and cancel through the real CLI.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setPayoutsMustLink } from '../../src/flows/merchants/merchants.ts';
import { insertPendingCharge } from '../../src/store/charges.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { runCli, runCliJson, storeNamed } from '../helpers/cli.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { approvedCharge, assertLedgerOk, balances, caller, created, events, failure, statusBody, transferBody, transferPk } from '../helpers/transfers.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

type Merchant = Awaited<ReturnType<TestApp['newMerchant']>>;

const gateway = (pk: number) => [{ name: 'gatewayId', value: String(pk) }];
/** docs/api-decisions.md section 7: each reason a gatewayId cannot pay for a transfer has its own message. */
const gatewayRefusal = (pk: number, reason: string) => failure('invalid_request', `attribute gatewayId ${pk} ${reason}`);
const notEnoughLeft = (pk: number, left: string, amount: string) =>
  gatewayRefusal(pk, `has ${left} not yet linked to transfers, less than the amount ${amount}`);

for (const kind of STORE_KINDS) {
  describe(`payin linking (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(async () => {
      await t.close();
    });

    const linkedCents = async (chargePk: number) =>
      Number((await t.service.db.read((tx) => tx.get<{ linked_cents: number }>('SELECT linked_cents FROM charges WHERE pk = ?', [chargePk])))!.linked_cents);
    const links = async (merchantId: string, id: string) => {
      const pk = await transferPk(t.service, merchantId, id);
      return (
        await t.service.db.read((tx) =>
          tx.all<{ charge_pk: number; amount_cents: number; how: string }>('SELECT charge_pk, amount_cents, how FROM transfer_links WHERE transfer_pk = ?', [
            pk,
          ]),
        )
      ).map((row) => [Number(row.charge_pk), Number(row.amount_cents), row.how]);
    };

    describe('gatewayId', () => {
      let merchant: Merchant;
      let api: ReturnType<typeof caller>;
      before(async () => {
        merchant = await t.newMerchant({ fundCents: 100_000 });
        api = caller(t.app, merchant.transfer_api_key);
      });

      it('links the transfer to an approved charge of the merchant; a charge funds several transfers until used up', async () => {
        const charge = await approvedCharge(t.service, merchant, 5_000, t.clock.nowMs());
        const first = transferBody({ amount: '20.00', attribute: gateway(charge) });
        assert.equal((await api.check(first)).status, 200);
        assert.deepEqual(await api.execute(first), { status: 200, body: created(first.id) });
        const second = transferBody({ amount: '30.00', attribute: gateway(charge) });
        assert.deepEqual(await api.execute(second), { status: 200, body: created(second.id) });
        assert.equal(await linkedCents(charge), 5_000);
        assert.deepEqual(await links(merchant.merchant_id, first.id), [[charge, 2_000, 'gateway']]);
        const third = transferBody({ amount: '1.00', attribute: gateway(charge) });
        assert.deepEqual(await api.check(third), { status: 400, body: notEnoughLeft(charge, '0.00', '1.00') });
        assert.deepEqual(await api.execute(third), { status: 400, body: notEnoughLeft(charge, '0.00', '1.00') });
        await t.worker.drain();
        await assertLedgerOk(t.service);
      });

      it("refuses another merchant's charge, an unknown reference and a charge that is not approved; nothing changes", async () => {
        const other = await t.newMerchant();
        const foreign = await approvedCharge(t.service, other, 5_000, t.clock.nowMs());
        const pending = await t.service.db.write((tx) =>
          insertPendingCharge(tx, {
            merchant_id: merchant.merchant_id,
            source_id: merchant.source.id,
            amount_cents: 5_000,
            card_type: 'Visa',
            last4: '1111',
            bin: '411111',
            expiry_month: 12,
            expiry_year: 2030,
            card_number_enc: Buffer.from('not a card number'),
            request_json: '{}',
            idem_key: null,
            recover_at_ms: t.clock.nowMs() + DAY_MS,
            created_at_ms: t.clock.nowMs(),
          }),
        );
        const start = await balances(t.service, merchant.merchant_id);
        const refusals: Array<[number, string]> = [
          [foreign, 'names no card payin'],
          [pending, 'names a card payin that is pending, not approved'],
          [999_999_999, 'names no card payin'],
        ];
        for (const [pk, reason] of refusals) {
          const body = transferBody({ attribute: gateway(pk) });
          assert.deepEqual(await api.execute(body), { status: 400, body: gatewayRefusal(pk, reason) }, String(pk));
          assert.deepEqual(await api.check(body), { status: 400, body: gatewayRefusal(pk, reason) }, String(pk));
        }
        assert.deepEqual(await balances(t.service, merchant.merchant_id), start);
        assert.equal(await linkedCents(foreign), 0);
      });

      it('a failed transfer gives its share of the charge back', async () => {
        const charge = await approvedCharge(t.service, merchant, 1_000, t.clock.nowMs());
        const failing = transferBody({ lastFour: '0004', amount: '10.00', attribute: gateway(charge) });
        assert.deepEqual(await api.execute(failing), { status: 200, body: created(failing.id) });
        assert.equal(await linkedCents(charge), 1_000);
        await t.worker.drain();
        assert.deepEqual(await events(t.service, merchant.merchant_id, failing.id), [
          [0, 0],
          [40, 1],
          [80, 5],
        ]);
        assert.equal(await linkedCents(charge), 0);
        assert.deepEqual(await links(merchant.merchant_id, failing.id), []);
        const retry = transferBody({ amount: '10.00', attribute: gateway(charge) });
        assert.deepEqual(await api.execute(retry), { status: 200, body: created(retry.id) });
        await t.worker.drain();
        assert.equal(await linkedCents(charge), 1_000);
        await assertLedgerOk(t.service);
      });
    });

    describe('merchants whose payouts must be linked', () => {
      let merchant: Merchant;
      let api: ReturnType<typeof caller>;
      before(async () => {
        merchant = await t.newMerchant({ fundCents: 100_000 });
        await setPayoutsMustLink({ db: t.service.db, environment: 'sandbox', clock: t.clock }, { merchantId: merchant.merchant_id, on: true });
        api = caller(t.app, merchant.transfer_api_key);
      });
      const waiting = (id: string) => ({
        status: 200,
        body: statusBody(id, { state: 0, substate: 9, final: 0, serverTimeMs: t.clock.nowMs(), attribute: [{ name: 'waitingFor', value: 'reconciliation' }] }),
      });

      it('a transfer with gatewayId proceeds at once', async () => {
        const charge = await approvedCharge(t.service, merchant, 1_000, t.clock.nowMs());
        const body = transferBody({ attribute: gateway(charge) });
        assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
        await t.worker.drain();
        assert.deepEqual(await events(t.service, merchant.merchant_id, body.id), [
          [0, 0],
          [40, 1],
          [60, 0],
        ]);
      });

      it('without gatewayId it is debited and waits; reconciliation links the oldest recent charge with room, then it proceeds', async () => {
        const start = await balances(t.service, merchant.merchant_id);
        const body = transferBody({ amount: '25.00' });
        assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id, '9') });
        assert.deepEqual(await balances(t.service, merchant.merchant_id), { ...start, available: start.available - 2_500, in_flight: start.in_flight + 2_500 });
        await t.worker.drain();
        assert.deepEqual(await api.status(body.id), waiting(body.id));

        const tooOld = await approvedCharge(t.service, merchant, 10_000, t.clock.nowMs() - DAY_MS - 1);
        const tooSmall = await approvedCharge(t.service, merchant, 2_499, t.clock.nowMs() - 60_000);
        await t.worker.drain();
        assert.deepEqual(await api.status(body.id), waiting(body.id), 'a charge older than 24 hours or too small does not reconcile it');

        const newer = await approvedCharge(t.service, merchant, 5_000, t.clock.nowMs() - 1_000);
        const older = await approvedCharge(t.service, merchant, 5_000, t.clock.nowMs() - 2_000);
        await t.worker.drain();
        assert.deepEqual(await links(merchant.merchant_id, body.id), [[older, 2_500, 'auto']]);
        assert.deepEqual(await events(t.service, merchant.merchant_id, body.id), [
          [0, 9],
          [0, 0],
          [40, 1],
          [60, 0],
        ]);
        assert.deepEqual([await linkedCents(tooOld), await linkedCents(tooSmall), await linkedCents(newer)], [0, 0, 0]);
        await assertLedgerOk(t.service);
      });

      it('waiting transfers share recent charges oldest first, without over-linking any', async () => {
        const fresh = await t.newMerchant({ fundCents: 100_000 });
        await setPayoutsMustLink({ db: t.service.db, environment: 'sandbox', clock: t.clock }, { merchantId: fresh.merchant_id, on: true });
        const freshApi = caller(t.app, fresh.transfer_api_key);
        const first = await approvedCharge(t.service, fresh, 3_000, t.clock.nowMs() - 2_000);
        const second = await approvedCharge(t.service, fresh, 2_500, t.clock.nowMs() - 1_000);
        const bodies = [1, 2, 3, 4].map(() => transferBody({ amount: '10.00' }));
        const big = transferBody({ amount: '20.00' });
        for (const body of [...bodies, big]) assert.deepEqual(await freshApi.execute(body), { status: 200, body: created(body.id, '9') });
        await t.worker.drain();
        assert.deepEqual([await linkedCents(first), await linkedCents(second)], [3_000, 1_000]);
        for (const [i, body] of bodies.entries()) assert.deepEqual(await links(fresh.merchant_id, body.id), [[i < 3 ? first : second, 1_000, 'auto']]);
        assert.deepEqual(await links(fresh.merchant_id, big.id), [], 'no charge has 20.00 left');
        assert.deepEqual(await freshApi.status(big.id), waiting(big.id));
        await assertLedgerOk(t.service);
      });

      describe('the operator, through the payrail CLI', () => {
        const cli = (args: string[]) => runCli(['--json', 'transfer', ...args, '--merchant', merchant.merchant_id], t.store.env);

        it('links a waiting transfer to a charge by hand (any age), and it proceeds', async () => {
          const body = transferBody({ amount: '40.00' });
          await api.execute(body);
          const old = await approvedCharge(t.service, merchant, 4_000, t.clock.nowMs() - 3 * DAY_MS);
          const linked = await runCliJson(
            ['transfer', 'link', '--merchant', merchant.merchant_id, '--transfer', body.id, '--charge', String(old)],
            t.store.env,
          );
          assert.deepEqual(linked, {
            merchant_id: merchant.merchant_id,
            transfer_id: body.id,
            state: 0,
            substate: 0,
            final: 0,
            waiting_for: null,
            amount_cents: 4_000,
            charge: old,
          });
          assert.deepEqual(await links(merchant.merchant_id, body.id), [[old, 4_000, 'operator']]);
          // The CLI ran on the real clock: the test's clock catches up with it before the worker looks.
          t.clock.set(Math.max(t.clock.nowMs(), Date.now()));
          await t.worker.drain();
          assert.deepEqual(await events(t.service, merchant.merchant_id, body.id), [
            [0, 9],
            [0, 0],
            [40, 1],
            [60, 0],
          ]);
          await assertLedgerOk(t.service);
        });

        it('cancels a waiting transfer: 80, money back to the merchant', async () => {
          const start = await balances(t.service, merchant.merchant_id);
          const body = transferBody({ amount: '45.00' });
          await api.execute(body);
          const cancelled = await runCliJson(['transfer', 'cancel', '--merchant', merchant.merchant_id, '--transfer', body.id], t.store.env);
          assert.deepEqual(cancelled, {
            merchant_id: merchant.merchant_id,
            transfer_id: body.id,
            state: 80,
            substate: 7,
            final: 1,
            waiting_for: null,
            amount_cents: 4_500,
            charge: null,
          });
          assert.deepEqual(await api.status(body.id), {
            status: 200,
            body: statusBody(body.id, {
              state: 80,
              substate: 7,
              final: 1,
              serverTimeMs: t.clock.nowMs(),
              attribute: [
                { name: 'provider-error-text', value: 'Cancelled by the operator' },
                { name: 'provider-error-code', value: 'CANCELLED' },
              ],
            }),
          });
          assert.deepEqual(await balances(t.service, merchant.merchant_id), start);
          await assertLedgerOk(t.service);
        });

        it('refuses what it cannot do, with the code and a non-zero exit, and changes nothing', async () => {
          const unknown = await cli(['cancel', '--transfer', '999999999']);
          assert.equal(unknown.code, 1);
          assert.deepEqual(JSON.parse(unknown.stderr), {
            error: { code: 'transfer_not_found', message: `merchant ${merchant.merchant_id} has no transfer 999999999`, store: storeNamed(t.store.env) },
          });

          const body = transferBody({ amount: '50.00' });
          await api.execute(body);
          const small = await approvedCharge(t.service, merchant, 4_999, t.clock.nowMs() - 3 * DAY_MS);
          const tooSmall = await cli(['link', '--transfer', body.id, '--charge', String(small)]);
          assert.equal(tooSmall.code, 1);
          assert.deepEqual(JSON.parse(tooSmall.stderr), {
            error: {
              code: 'invalid_request',
              message: `charge ${small} is not an approved card payin of merchant ${merchant.merchant_id} with 50.00 not yet linked`,
              store: storeNamed(t.store.env),
            },
          });
          assert.deepEqual(await api.status(body.id), waiting(body.id));
          assert.equal(await linkedCents(small), 0);

          const done = await runCliJson(['transfer', 'cancel', '--merchant', merchant.merchant_id, '--transfer', body.id], t.store.env);
          assert.equal((done as { state: number }).state, 80);
          const again = await cli(['cancel', '--transfer', body.id]);
          assert.equal(again.code, 1);
          assert.deepEqual(JSON.parse(again.stderr), {
            error: {
              code: 'invalid_request',
              message: `only a waiting transfer (state 0, substate 9) can be cancelled; transfer ${body.id} is state 80, substate 7`,
              store: storeNamed(t.store.env),
            },
          });
          const relink = await cli(['link', '--transfer', body.id, '--charge', String(small)]);
          assert.deepEqual(JSON.parse(relink.stderr), {
            error: {
              code: 'invalid_request',
              message: `transfer ${body.id} is not waiting for reconciliation (state 80, substate 7)`,
              store: storeNamed(t.store.env),
            },
          });
          await assertLedgerOk(t.service);
        });
      });
    });
  });
}
