// The transfer API with PAYRAIL_FX_PROVIDER=openexchangerates against the
// stand-in, on both stores: a check quotes the stand-in's rate less the
// corridor's fx_margin_percent; a table too old refuses the check (503
// service_unavailable, saying why) and writes nothing; an execute within 15
// minutes of its check keeps the quoted rate after the provider's moved.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/domain/clock.ts';
import { BREAKER_DEFAULTS } from '../../src/providers/breaker.ts';
import { breakerOf } from '../../src/providers/connector-breakers.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS, tempDir } from '../helpers/stores.ts';
import { assertLedgerOk, caller, created, failure, transferBody } from '../helpers/transfers.ts';
import { startOxrStandIn, type OxrStandIn } from './openexchangerates/stand-in.ts';

const SANDBOX_CORRIDORS = path.join(import.meta.dirname, '..', '..', 'config', 'corridors.sandbox.json');
const MINUTE_MS = 60_000;

function checked(fxRate: string, receivedAmount: string): unknown {
  return {
    success: true,
    error: '',
    attribute: [
      { name: 'fx_rate', value: fxRate },
      { name: 'receivedAmount', value: receivedAmount },
      { name: 'receiverStatus', value: 'registered' },
    ],
  };
}

/** The sandbox corridors with a 1.5 % margin on KES (service 1001); the others keep none. */
function corridorsFile(): string {
  const document = JSON.parse(fs.readFileSync(SANDBOX_CORRIDORS, 'utf8')) as { corridors: Array<Record<string, unknown>> };
  for (const corridor of document.corridors) if (corridor.service === '1001') corridor.fx_margin_percent = '1.5';
  const file = path.join(tempDir(), 'corridors.json');
  fs.writeFileSync(file, JSON.stringify(document));
  return file;
}

for (const kind of STORE_KINDS) {
  describe(`transfer API with openexchangerates (${kind})`, () => {
    let t: TestApp;
    let oxr: OxrStandIn;
    let api: ReturnType<typeof caller>;
    let merchantId: string;

    before(async () => {
      const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
      oxr = await startOxrStandIn({ timestampSeconds: clock.nowMs() / 1000 });
      t = await createTestApp(kind, {
        clock,
        env: {
          PAYRAIL_FX_PROVIDER: 'openexchangerates',
          PAYRAIL_OXR_URL: oxr.url,
          PAYRAIL_OXR_APP_ID: oxr.appId,
          PAYRAIL_OXR_REFRESH_SECONDS: '600',
          PAYRAIL_CORRIDORS_FILE: corridorsFile(),
        },
      });
      const merchant = await t.newMerchant({ fundCents: 100_000 });
      merchantId = merchant.merchant_id;
      api = caller(t.app, merchant.transfer_api_key);
    });
    after(async () => {
      await assertLedgerOk(t.service);
      await t.close();
      await oxr.close();
    });

    const count = async (table: 'transfers' | 'quotes', id: string) =>
      Number(
        (await t.service.db.read((tx) =>
          tx.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE merchant_id = ? AND ${table === 'transfers' ? 'id' : 'transfer_id'} = ?`, [
            merchantId,
            id,
          ]),
        ))!.n,
      );
    const stored = async (id: string) =>
      (await t.service.db.read((tx) =>
        tx.get<{ fx_rate: string; received_minor: number }>('SELECT fx_rate, received_minor FROM transfers WHERE merchant_id = ? AND id = ?', [merchantId, id]),
      ))!;

    it("check quotes the provider's rate less the corridor's margin (KES 129.5 less 1.5 %; NGN without margin)", async () => {
      assert.deepEqual(await api.check(transferBody({ amount: '10.00' })), { status: 200, body: checked('127.5575', '1275.58') });
      assert.deepEqual(await api.check(transferBody({ country: 'NG', amount: '10.00' })), { status: 200, body: checked('1532.123456', '15321.23') });
      assert.equal(oxr.requestCount(), 1, 'the table fetched at start serves both');
      assert.deepEqual(oxr.queries()[0], { symbols: 'EGP,GHS,KES,NGN,PHP,UGX' }, 'the App ID travels in a header, never in the query');
    });

    it('an execute within 15 minutes of its check keeps the quoted rate after the provider moved', async () => {
      const quoted = transferBody({ amount: '10.00' });
      assert.deepEqual(await api.check(quoted), { status: 200, body: checked('127.5575', '1275.58') });
      oxr.setRate('KES', '140');
      oxr.setTimestamp(t.clock.nowMs() / 1000 + 600);
      t.clock.advance(10 * MINUTE_MS);
      // The refresh is due: a new check sees the new rate...
      assert.deepEqual(await api.check(transferBody({ amount: '10.00' })), { status: 200, body: checked('137.9', '1379.00') });
      // ...and the quoted execute keeps its own.
      assert.deepEqual(await api.execute(quoted), { status: 200, body: created(quoted.id) });
      assert.deepEqual(
        { ...(await stored(quoted.id)), received_minor: Number((await stored(quoted.id)).received_minor) },
        { fx_rate: '127.5575', received_minor: 127_558 },
      );
      const unquoted = transferBody({ amount: '10.00' });
      assert.deepEqual(await api.execute(unquoted), { status: 200, body: created(unquoted.id) });
      assert.equal((await stored(unquoted.id)).fx_rate, '137.9');
    });

    it('a table older than the largest age: check and execute answer 503 saying why, and write nothing', async () => {
      const publishedAtMs = t.clock.nowMs();
      oxr.setTimestamp(publishedAtMs / 1000);
      t.clock.advance(10 * MINUTE_MS);
      assert.equal((await api.check(transferBody())).status, 200);
      // The provider stops publishing: its answers keep that timestamp until it is more than 30 minutes (3 refreshes of 600 s) old.
      t.clock.advance(30 * MINUTE_MS + 1000);
      const body = transferBody();
      const refusal = failure(
        'service_unavailable',
        `no current KES rate: the newest is from ${new Date(publishedAtMs).toISOString()} (older than 30 minutes); nothing was written; retry later`,
      );
      assert.deepEqual(await api.check(body), { status: 503, body: refusal });
      assert.deepEqual(await api.execute(body), { status: 503, body: refusal });
      assert.equal(await count('quotes', body.id), 0);
      assert.equal(await count('transfers', body.id), 0);
      // Refusals are answers, not an unreachable provider: however many, the circuit breaker stays closed and the message stays this one.
      for (let i = 0; i < BREAKER_DEFAULTS.consecutiveFailuresMax; i++) assert.deepEqual(await api.check(transferBody()), { status: 503, body: refusal });
      assert.equal(breakerOf(t.service.providers.fx)?.state(), 'closed');
      // Published again: after the pause between fetches the same request goes through.
      oxr.setTimestamp(t.clock.nowMs() / 1000);
      t.clock.advance(30_000);
      assert.deepEqual(await api.check(body), { status: 200, body: checked('137.9', '1379.00') });
    });
  });
}
