// The openexchangerates connector against the stand-in
// (test/providers/openexchangerates/stand-in.ts): the table fetched at
// start, each corridor's margin, staleness and missing currencies refused
// with RateUnavailable, failed refreshes keeping the last good table until
// it is too old, one fetch in flight at a time, refreshes when due, the
// pause after a fetch, and no App ID in any log line. Time is a manual
// clock; the stand-in's timestamp is set against it. And the stand-in's own
// answers checked against the documentation, in process and as stand-in-main.ts.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ManualClock } from '../../src/domain/clock.ts';
import type { Corridor } from '../../src/domain/corridors.ts';
import { Secret } from '../../src/domain/secret.ts';
import { createLogger } from '../../src/log.ts';
import { RateUnavailable } from '../../src/providers/fx.ts';
import { countsAgainstBreaker } from '../../src/providers/breaker.ts';
import { createOpenExchangeRates, type OpenExchangeRatesConnector } from '../../src/providers/openexchangerates/index.ts';
import { PAUSE_AFTER_FETCH_MS } from '../../src/providers/openexchangerates/settings.ts';
import { startOxrStandIn, type OxrStandIn } from './openexchangerates/stand-in.ts';

const HOUR_MS = 3_600_000;

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

describe('openexchangerates connector against the stand-in', () => {
  let standIn: OxrStandIn;
  let clock: ManualClock;
  let lines: string[];
  const made: OpenExchangeRatesConnector[] = [];

  beforeEach(async () => {
    clock = new ManualClock(Date.UTC(2026, 10, 28, 12, 0, 0));
    standIn = await startOxrStandIn({ timestampSeconds: clock.nowMs() / 1000 });
    lines = [];
  });
  afterEach(async () => {
    for (const connector of made.splice(0)) connector.stop();
    await standIn.close();
  });

  function connect(options: { appId?: string; refreshSeconds?: number; maxAgeSeconds?: number; fetchTimeoutMs?: number } = {}): OpenExchangeRatesConnector {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(chunk.toString('utf8'));
        callback();
      },
    });
    const connector = createOpenExchangeRates(
      {
        url: standIn.url,
        appId: new Secret(options.appId ?? standIn.appId),
        refreshSeconds: options.refreshSeconds ?? 3600,
        maxAgeSeconds: options.maxAgeSeconds ?? 3 * 3600,
        ...(options.fetchTimeoutMs === undefined ? {} : { fetchTimeoutMs: options.fetchTimeoutMs }),
      },
      { log: createLogger('debug', sink), clock, currencies: ['NGN', 'KES', 'KES', 'XYZ'] },
    );
    made.push(connector);
    return connector;
  }

  const noAppIdLogged = () => {
    assert.ok(lines.length > 0, 'something was logged');
    for (const line of lines) assert.ok(!line.includes(standIn.appId), `the App ID was logged: ${line}`);
  };

  it('fetches at start, asks only for the corridor currencies, and quotes each corridor less its margin', async () => {
    const oxr = connect();
    await standIn.requestsReached(1);
    assert.equal(await oxr.rate(corridor('KES')), '129.5');
    assert.equal(await oxr.rate(corridor('KES', '1.5')), '127.5575');
    assert.equal(await oxr.rate(corridor('NGN', '0.75')), '1520.63253008');
    assert.equal(standIn.requestCount(), 1, 'one fetch serves every quote');
    // The App ID went as `Authorization: Token ...` (the stand-in answered), never as app_id in a URL.
    assert.deepEqual(standIn.queries(), [{ symbols: 'KES,NGN,XYZ' }]);
    noAppIdLogged();
  });

  it('a currency the table lacks, or whose number is refused, is RateUnavailable naming it; the breaker does not count it', async () => {
    standIn.setRate('NGN', '-1532');
    const oxr = connect();
    const lacking = await oxr.rate(corridor('XYZ')).then(
      () => assert.fail('quoted'),
      (error: unknown) => error,
    );
    assert.ok(lacking instanceof RateUnavailable);
    assert.equal(lacking.message, "no current XYZ rate: the rate provider's table of 2026-11-28T12:00:00.000Z has none");
    assert.equal(countsAgainstBreaker(lacking), false);
    await assert.rejects(oxr.rate(corridor('NGN')), { name: 'RateUnavailable', message: /^no current NGN rate/ });
    assert.ok(lines.some((line) => line.includes('no usable NGN rate: refused: not positive (-1532)')));
  });

  it('a table older than the largest age is refused with when it is from, never quoted', async () => {
    standIn.setTimestamp(clock.nowMs() / 1000 - 3 * 3600 - 1);
    const oxr = connect();
    await assert.rejects(oxr.rate(corridor('KES')), (error: unknown) => {
      assert.ok(error instanceof RateUnavailable);
      assert.equal(error.message, 'no current KES rate: the newest is from 2026-11-28T08:59:59.000Z (older than 3 hours)');
      assert.equal(countsAgainstBreaker(error), false);
      return true;
    });
    // The fetch at start brought the old table; within the pause after it, the provider is not asked again.
    assert.equal(standIn.requestCount(), 1);
    await assert.rejects(oxr.rate(corridor('KES')), { name: 'RateUnavailable' });
    assert.equal(standIn.requestCount(), 1);
    // After the pause, a fresh table is quoted.
    standIn.setTimestamp(clock.nowMs() / 1000);
    clock.advance(PAUSE_AFTER_FETCH_MS);
    assert.equal(await oxr.rate(corridor('KES')), '129.5');
    assert.equal(standIn.requestCount(), 2);
  });

  for (const fault of ['http-500', 'http-502', 'drop', 'rate-limited', 'not-allowed', 'not-json', 'hang'] as const) {
    it(`a refresh that fails (${fault}) keeps the last good table until it is too old`, async () => {
      const oxr = connect({ fetchTimeoutMs: fault === 'hang' ? 300 : 5_000 });
      assert.equal(await oxr.rate(corridor('KES')), '129.5');
      standIn.setRate('KES', '140');
      standIn.failNext(fault);
      clock.advance(HOUR_MS);
      // Due: the rate waits for the refresh, which fails; the held table (an hour old) is still quoted.
      assert.equal(await oxr.rate(corridor('KES')), '129.5');
      assert.equal(standIn.requestCount(), 2);
      const warning = lines.find((line) => line.includes('fetching the rates failed'));
      assert.ok(warning !== undefined);
      if (fault === 'rate-limited') assert.match(warning, /"provider_error":"access_restricted"/);
      if (fault === 'not-allowed') assert.match(warning, /"provider_error":"not_allowed"/);
      // Within the pause after a failure the provider is not asked again.
      clock.advance(PAUSE_AFTER_FETCH_MS - 1);
      assert.equal(await oxr.rate(corridor('KES')), '129.5');
      assert.equal(standIn.requestCount(), 2);
      // Past the pause, the next rate fetches again and sees the new rate.
      clock.advance(1);
      assert.equal(await oxr.rate(corridor('KES')), '140');
      assert.equal(standIn.requestCount(), 3);
      noAppIdLogged();
    });
  }

  it('a provider down for longer than the largest age: checks are refused as stale, not quoted', async () => {
    const oxr = connect({ maxAgeSeconds: 3600 });
    assert.equal(await oxr.rate(corridor('KES')), '129.5');
    standIn.failNext('http-500', 100);
    clock.advance(HOUR_MS + 1000);
    await assert.rejects(oxr.rate(corridor('KES')), {
      name: 'RateUnavailable',
      message: 'no current KES rate: the newest is from 2026-11-28T12:00:00.000Z (older than 1 hour)',
    });
  });

  it('a provider down at start does not stop the start: no table is an ordinary error (it counts against the breaker), until a fetch succeeds', async () => {
    standIn.failNext('http-500');
    const oxr = connect();
    await standIn.requestsReached(1);
    const error = await oxr.rate(corridor('KES')).then(
      () => assert.fail('quoted'),
      (thrown: unknown) => thrown,
    );
    assert.ok(error instanceof Error && !(error instanceof RateUnavailable));
    assert.match(error.message, /no rate table yet \(HTTP 500: no error code\)/);
    assert.ok(countsAgainstBreaker(error));
    clock.advance(PAUSE_AFTER_FETCH_MS);
    assert.equal(await oxr.rate(corridor('KES')), '129.5');
  });

  it('a refused App ID is logged by its code, never the App ID', async () => {
    const oxr = connect({ appId: 'ffffffffffffffffffffffffffffffff' });
    await assert.rejects(oxr.rate(corridor('KES')), /no rate table yet \(HTTP 401: invalid_app_id: Invalid App ID provided/);
    assert.ok(lines.some((line) => line.includes('"provider_error":"invalid_app_id"')));
    for (const line of lines) assert.ok(!line.includes('ffffffffffffffffffffffffffffffff'));
  });

  it('one fetch at a time: callers join the fetch in flight, each stops waiting at its own signal', async () => {
    standIn.failNext('hang');
    const oxr = connect();
    await standIn.requestsReached(1);
    const first = new AbortController();
    const second = new AbortController();
    const waiting = [oxr.rate(corridor('KES'), first.signal), oxr.rate(corridor('NGN'), second.signal)];
    first.abort(new Error('first gave up'));
    second.abort(new Error('second gave up'));
    await assert.rejects(waiting[0]!, /first gave up/);
    await assert.rejects(waiting[1]!, /second gave up/);
    assert.equal(standIn.requestCount(), 1);
  });

  it('a refresh is due after the refresh interval: the next rate fetches and quotes the new table', async () => {
    const oxr = connect({ refreshSeconds: 600, maxAgeSeconds: 1800 });
    assert.equal(await oxr.rate(corridor('KES')), '129.5');
    standIn.setRate('KES', '131.25');
    standIn.setTimestamp(clock.nowMs() / 1000 + 300);
    clock.advance(599_000);
    assert.equal(await oxr.rate(corridor('KES')), '129.5', 'not due yet');
    clock.advance(1000);
    assert.equal(await oxr.rate(corridor('KES', '2')), '128.625');
    assert.equal(standIn.requestCount(), 2);
  });

  it('an answer older than the table held does not replace it', async () => {
    const oxr = connect({ refreshSeconds: 600 });
    assert.equal(await oxr.rate(corridor('KES')), '129.5');
    standIn.setRate('KES', '100');
    standIn.setTimestamp(clock.nowMs() / 1000 - 60);
    clock.advance(600_000);
    assert.equal(await oxr.rate(corridor('KES')), '129.5');
    assert.equal(standIn.requestCount(), 2);
  });

  it('a rate is read as the provider wrote it, digits a double cannot hold included', async () => {
    standIn.setRate('KES', '129.50000000000000001');
    standIn.setRate('NGN', '1.5325E3');
    const oxr = connect();
    assert.equal(await oxr.rate(corridor('KES')), '129.5');
    assert.equal(await oxr.rate(corridor('KES', '0.0001')), '129.4998705');
    assert.equal(await oxr.rate(corridor('NGN')), '1532.5');
  });
});

describe('the stand-in answers as the documentation says', () => {
  let standIn: OxrStandIn;
  beforeEach(async () => {
    standIn = await startOxrStandIn({ timestampSeconds: 1_764_331_200 });
  });
  afterEach(async () => {
    await standIn.close();
  });
  const get = async (pathAndQuery: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${standIn.url.replace(/\/api$/, '')}${pathAndQuery}`, { headers });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };

  it('latest.json: a USD table of the symbols asked that it has', async () => {
    const answer = await get(`/api/latest.json?app_id=${standIn.appId}&symbols=KES,ngn,XYZ`);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.json, {
      disclaimer: 'Usage subject to terms: https://openexchangerates.org/terms',
      license: 'https://openexchangerates.org/license',
      timestamp: 1_764_331_200,
      base: 'USD',
      rates: { KES: 129.5, NGN: 1532.123456 },
    });
    const all = await get(`/api/latest.json?app_id=${standIn.appId}`);
    assert.equal(Object.keys(all.json.rates as object).length, 7);
    const byHeader = await get('/api/latest.json?symbols=KES', { authorization: `Token ${standIn.appId}` });
    assert.deepEqual([byHeader.status, byHeader.json.rates], [200, { KES: 129.5 }]);
  });

  it('errors are {error, status, message, description} with the documented codes', async () => {
    const error = (status: number, message: string) => ({ status, message });
    const shape = (answer: { status: number; json: Record<string, unknown> }) => {
      assert.equal(answer.json.error, true);
      assert.equal(answer.json.status, answer.status);
      assert.equal(typeof answer.json.description, 'string');
      return { status: answer.status, message: answer.json.message };
    };
    assert.deepEqual(shape(await get('/api/latest.json')), error(401, 'missing_app_id'));
    assert.deepEqual(shape(await get('/api/latest.json?app_id=nope')), error(401, 'invalid_app_id'));
    assert.deepEqual(shape(await get('/api/latest.json', { authorization: 'Token nope' })), error(401, 'invalid_app_id'));
    assert.deepEqual(shape(await get('/api/latest.json', { authorization: `Bearer ${standIn.appId}` })), error(401, 'missing_app_id'));
    assert.deepEqual(shape(await get('/api/latest.json', { authorization: 'Token ' })), error(401, 'missing_app_id'));
    assert.deepEqual(shape(await get(`/api/latest.json?app_id=${standIn.appId}&base=EUR`)), error(429, 'not_allowed'));
    assert.deepEqual(shape(await get(`/api/historical/2026-01-01.json?app_id=${standIn.appId}`)), error(404, 'not_found'));
    standIn.failNext('rate-limited');
    assert.deepEqual(shape(await get(`/api/latest.json?app_id=${standIn.appId}`)), error(429, 'access_restricted'));
  });

  it('stand-in-main runs as its own process and obeys POST /control/<verb>', async () => {
    const main = fileURLToPath(new URL('./openexchangerates/stand-in-main.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', main], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const started = JSON.parse(line) as { url: string; controlUrl: string; appId: string };
      assert.match(started.url, /^http:\/\/127\.0\.0\.1:\d+\/api$/);
      const control = async (verb: string, body: object) =>
        (await (await fetch(`${started.controlUrl}${verb}`, { method: 'POST', body: JSON.stringify(body) })).json()) as Record<string, unknown>;
      assert.equal((await control('setRate', { currency: 'KES', rate: '131.75' })).ok, true);
      assert.equal((await control('setTimestamp', { seconds: 1_764_334_800 })).ok, true);
      assert.equal((await control('failNext', { fault: 'http-500' })).ok, true);
      const latest = `${started.url}/latest.json?app_id=${started.appId}&symbols=KES`;
      const failed = await fetch(latest);
      assert.equal(failed.status, 500);
      await failed.text();
      assert.deepEqual(((await (await fetch(latest)).json()) as { rates: object; timestamp: number }).rates, { KES: 131.75 });
      assert.equal((await control('requestCount', {})).requestCount, 2);
      assert.equal((await control('failNext', { fault: 'melt' })).ok, false);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
});
