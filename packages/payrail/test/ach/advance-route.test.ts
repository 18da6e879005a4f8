// `POST /sandbox/ach/advance` and `payrail ach advance`: argument errors
// answered before anything is written, authentication, business days
// counted over weekends, production refusing both.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isApiError } from '../../src/errors.ts';
import { advanceSandboxAchClock } from '../../src/flows/ach/sandbox-clock.ts';
import { buildApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/log.ts';
import { createService } from '../../src/runtime.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createCheck, entryOf } from '../helpers/checks.ts';
import { runCli, runCliJson } from '../helpers/cli.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/** Friday 4 December 2026, 10:00 UTC. */
const FRIDAY_10_UTC = Date.UTC(2026, 11, 4, 10, 0);

function post(t: TestApp, apiKey: string | null, payload: string) {
  return t.app.inject({
    method: 'POST',
    url: '/sandbox/ach/advance',
    headers: { ...(apiKey === null ? {} : { 'api-key': apiKey }), 'content-type': 'application/json' },
    payload,
  });
}

async function offsetOf(t: TestApp, merchantId: string): Promise<number> {
  const row = await t.service.db.read((tx) =>
    tx.get<{ offset_ms: number | string }>('SELECT offset_ms FROM sandbox_ach_clocks WHERE merchant_id = ?', [merchantId]),
  );
  return row === undefined ? 0 : Number(row.offset_ms);
}

for (const kind of STORE_KINDS) {
  describe(`sandbox ACH clock (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
      t.clock.set(FRIDAY_10_UTC);
    });
    after(async () => t.close());

    it('counts business days over the weekend and answers the new ACH time', async () => {
      const merchant = await t.newMerchant();
      const first = await post(t, merchant.transfer_api_key, JSON.stringify({ business_days: 1 }));
      assert.equal(first.statusCode, 200, first.body);
      assert.deepEqual(first.json(), {
        success: true,
        error: '',
        ach_time: '2026-12-07T10:00:00.000Z',
        business_days: 1,
        moved: { pending: 0, originated: 0, settled: 0, returned: 0, voided: 0, declined: 0, failed: 0 },
      });
      const second = await post(t, merchant.transfer_api_key, JSON.stringify({ business_days: 5 }));
      assert.equal((second.json() as { ach_time: string }).ach_time, '2026-12-14T10:00:00.000Z');
      assert.equal(await offsetOf(t, merchant.merchant_id), Date.UTC(2026, 11, 14, 10, 0) - FRIDAY_10_UTC);
      // Another merchant's clock did not move.
      const other = await t.newMerchant();
      assert.equal(await offsetOf(t, other.merchant_id), 0);
    });

    it('refuses bad business_days with a 400 and writes nothing', async () => {
      const merchant = await t.newMerchant();
      for (const payload of [
        '{"business_days":0}',
        '{"business_days":31}',
        '{"business_days":1.5}',
        '{"business_days":"2"}',
        '{}',
        '{"business_days":1,"x":1}',
        'nope',
      ]) {
        const response = await post(t, merchant.transfer_api_key, payload);
        assert.equal(response.statusCode, 400, `${payload}: ${response.body}`);
        assert.equal((response.json() as { success: unknown }).success, 'false', response.body);
      }
      assert.equal(await offsetOf(t, merchant.merchant_id), 0);
    });

    it('needs the transfer API key', async () => {
      const response = await post(t, null, '{"business_days":1}');
      assert.equal(response.statusCode, 401, response.body);
      const wrong = await post(t, 'sbx_tk_nope_nope', '{"business_days":1}');
      assert.equal(wrong.statusCode, 401, wrong.body);
    });

    it('moves only the calling merchant checks, and says what moved', async () => {
      const merchant = await t.newMerchant();
      const other = await t.newMerchant();
      // Friday 10:00: originated at Friday 21:00, settled Tuesday 21:00.
      const mine = await createCheck(t.service, merchant, { amountCents: 100, accountNumber: '10000' });
      const theirs = await createCheck(t.service, other, { amountCents: 100, accountNumber: '20000' });
      const response = await post(t, merchant.transfer_api_key, '{"business_days":3}');
      assert.deepEqual((response.json() as { moved: Record<string, number> }).moved, {
        pending: 0,
        originated: 0,
        settled: 1,
        returned: 0,
        voided: 0,
        declined: 0,
        failed: 0,
      });
      assert.equal((await entryOf(t.service, merchant, mine)).state, 'settled');
      assert.equal((await entryOf(t.service, other, theirs)).state, 'pending');
    });

    it('is refused in production, before anything else', async () => {
      const merchant = await t.newMerchant();
      const production = await createService(
        { ...t.service.config, environment: 'production' },
        { db: t.store.db, clock: t.clock, log: createLogger('silent') },
      );
      const app = await buildApp(production);
      try {
        const response = await app.inject({
          method: 'POST',
          url: '/sandbox/ach/advance',
          headers: { 'content-type': 'application/json' },
          payload: '{"business_days":1}',
        });
        assert.equal(response.statusCode, 404, response.body);
      } finally {
        await app.close();
      }
      // The flow the command runs refuses it the same way.
      await assert.rejects(
        advanceSandboxAchClock(production, { merchantId: merchant.merchant_id, businessDays: 1 }),
        (error) => isApiError(error) && error.error === 'sandbox_only',
      );
      assert.equal(await offsetOf(t, merchant.merchant_id), 0);
    });

    if (kind === 'sqlite') {
      it('payrail ach advance moves the clock; its argument errors say what is wrong', async () => {
        const merchant = await t.newMerchant();
        const result = await runCliJson<{ merchant_id: string; business_days: number; ach_time: string; moved: Record<string, number> }>(
          ['ach', 'advance', '--merchant', merchant.merchant_id, '--business-days', '2'],
          t.store.env,
        );
        assert.equal(result.merchant_id, merchant.merchant_id);
        assert.equal(result.business_days, 2);
        assert.equal(result.moved.settled, 0);
        assert.ok((await offsetOf(t, merchant.merchant_id)) >= 2 * 86_400_000);
        for (const days of ['0', '31', 'x', '1.5']) {
          const bad = await runCli(['ach', 'advance', '--merchant', merchant.merchant_id, '--business-days', days], t.store.env);
          assert.equal(bad.code, 2, bad.stderr);
          assert.match(bad.stderr, /must be an integer from 1 to 30/);
        }
        const missing = await runCli(['ach', 'advance', '--merchant', merchant.merchant_id], t.store.env);
        assert.equal(missing.code, 2);
        assert.match(missing.stderr, /--business-days/);
        const unknown = await runCli(['ach', 'advance', '--merchant', 'm_nobody', '--business-days', '1'], t.store.env);
        assert.equal(unknown.code, 1);
        assert.match(unknown.stderr, /merchant m_nobody does not exist/);
        const help = await runCli(['ach', 'advance', '--help'], t.store.env);
        assert.equal(help.code, 0);
        assert.match(help.stdout, /--business-days <n>/);
        assert.match(help.stdout, /sandbox only/);
      });
    }
  });
}
