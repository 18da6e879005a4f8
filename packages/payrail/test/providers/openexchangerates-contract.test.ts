// What the openexchangerates connector relies on in Open Exchange Rates'
// API, checked against the stand-in (test/providers/openexchangerates/)
// always, and against the real API when PAYRAIL_OXR_TEST_APP_ID holds an
// App ID (any plan; a run spends four requests of its quota). The cases
// need no control of the provider: a USD table limited to the symbols
// asked, published recently; rates as exact positive decimal text; the
// margin taken off; an unknown App ID refused with invalid_app_id (401); a
// currency the provider does not have refused as RateUnavailable.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { systemClock } from '../../src/domain/clock.ts';
import type { Corridor } from '../../src/domain/corridors.ts';
import { quotedRate } from '../../src/domain/fx-margin.ts';
import { isRateText } from '../../src/domain/money.ts';
import { Secret } from '../../src/domain/secret.ts';
import { RateUnavailable } from '../../src/providers/fx.ts';
import { fetchLatest, OxrCallFailed } from '../../src/providers/openexchangerates/client.ts';
import { createOpenExchangeRates, type OpenExchangeRatesConnector } from '../../src/providers/openexchangerates/index.ts';
import type { OpenExchangeRatesSettings } from '../../src/providers/openexchangerates/settings.ts';
import { readTable } from '../../src/providers/openexchangerates/table.ts';
import { startOxrStandIn, type OxrStandIn } from './openexchangerates/stand-in.ts';

const log = pino({ level: 'silent' });
const REAL_URL = 'https://openexchangerates.org/api';
/** Every plan publishes at least hourly; a table older than three hours means the answer is not the latest. */
const MAX_AGE_SECONDS = 3 * 3600;
/** A code no currency has (ISO 4217 reserves X.. codes; XYZ is unassigned). */
const UNKNOWN_CURRENCY = 'XYZ';

function corridor(currency: string, fxMarginPercent = '0'): Corridor {
  return {
    service: '1',
    country: 'KE',
    currency,
    currencyMinorUnits: 2,
    fxRate: '1',
    minAmountCents: 100,
    maxAmountCents: 100_000,
    requiredAttributes: [],
    payoutConnector: null,
    payoutSettings: {},
    fxMarginPercent,
  };
}

function sharedCases(settings: () => OpenExchangeRatesSettings): void {
  let connector: OpenExchangeRatesConnector;
  before(() => {
    connector = createOpenExchangeRates(settings(), { log, clock: systemClock, currencies: ['KES', 'NGN', UNKNOWN_CURRENCY] });
  });
  after(() => connector.stop());

  test('latest.json answers a recent USD table with exactly the symbols asked that exist', async () => {
    const answer = await fetchLatest(settings(), ['EUR', 'KES'], AbortSignal.timeout(10_000));
    const rates = (answer as { rates: Record<string, unknown> }).rates;
    assert.deepEqual(Object.keys(rates).sort(), ['EUR', 'KES']);
    const table = readTable(answer, ['EUR', 'KES'], Date.now());
    assert.deepEqual([...table.refused], []);
    const ageSeconds = (Date.now() - table.publishedAtMs) / 1000;
    assert.ok(ageSeconds >= -300 && ageSeconds < MAX_AGE_SECONDS, `published ${Math.round(ageSeconds)} s ago`);
    for (const rate of table.rates.values()) assert.ok(isRateText(rate), rate);
  });

  test('a corridor is quoted the exact rate less its margin', async () => {
    const plain = await connector.rate(corridor('KES'));
    assert.ok(isRateText(plain), plain);
    assert.equal(await connector.rate(corridor('KES', '1.5')), quotedRate(plain, '1.5'));
    assert.ok(isRateText(await connector.rate(corridor('NGN', '0.25'))));
  });

  test('a currency the provider does not have is RateUnavailable, naming it', async () => {
    await assert.rejects(connector.rate(corridor(UNKNOWN_CURRENCY)), (error: unknown) => {
      assert.ok(error instanceof RateUnavailable);
      assert.match(error.message, /^no current XYZ rate: the rate provider's table of .* has none$/);
      return true;
    });
  });

  test('an unknown App ID is refused: 401 invalid_app_id', async () => {
    const wrong = { ...settings(), appId: new Secret('0000000000000000000000000000beef') };
    await assert.rejects(fetchLatest(wrong, ['KES'], AbortSignal.timeout(10_000)), (error: unknown) => {
      assert.ok(error instanceof OxrCallFailed);
      assert.equal(error.status, 401);
      assert.equal(error.code, 'invalid_app_id');
      assert.ok(!error.message.includes('beef'));
      return true;
    });
  });
}

describe('openexchangerates connector against the stand-in', () => {
  let standIn: OxrStandIn;
  before(async () => {
    standIn = await startOxrStandIn();
  });
  after(async () => {
    await standIn.close();
  });
  sharedCases(() => ({ url: standIn.url, appId: new Secret(standIn.appId), refreshSeconds: 3600, maxAgeSeconds: MAX_AGE_SECONDS }));
});

const realAppId = process.env.PAYRAIL_OXR_TEST_APP_ID;
if (realAppId) {
  describe("openexchangerates connector against Open Exchange Rates' API", () => {
    sharedCases(() => ({ url: REAL_URL, appId: new Secret(realAppId), refreshSeconds: 3600, maxAgeSeconds: MAX_AGE_SECONDS }));
  });
} else {
  test("openexchangerates connector against Open Exchange Rates' API", (t) => {
    t.skip('set PAYRAIL_OXR_TEST_APP_ID (an App ID of any plan) to run the contract against the real API');
  });
}
