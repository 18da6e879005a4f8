// The pure parts of the openexchangerates connector, property-style over a
// seeded random sample (the same sample every run): the margin arithmetic
// (domain/fx-margin.ts) against an exact rational reference, JSON read with
// numbers kept as written (json-numbers.ts), that text to exact decimal text
// (rate-text.ts), and a latest.json answer read into a table (table.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { quotedRate, RATE_DECIMALS_MAX } from '../../src/domain/fx-margin.ts';
import { isRateText } from '../../src/domain/money.ts';
import { JsonNumber, JsonSyntaxError, parseJsonKeepingNumbers } from '../../src/providers/openexchangerates/json-numbers.ts';
import { plainDecimal, rateText } from '../../src/providers/openexchangerates/rate-text.ts';
import { readTable, TableUnusable } from '../../src/providers/openexchangerates/table.ts';

/** A small deterministic generator (mulberry32): failures reproduce. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function digits(next: () => number, count: number): string {
  let text = '';
  for (let i = 0; i < count; i++) text += String(Math.floor(next() * 10));
  return text;
}

/** An exact fraction for a decimal text. */
function fraction(text: string): { num: bigint; den: bigint } {
  const [whole, frac = ''] = text.split('.');
  return { num: BigInt(`${whole}${frac}`), den: 10n ** BigInt(frac.length) };
}

const SAMPLES = 2000;

describe('quotedRate: provider rate x (1 - margin / 100), rounded down to 12 decimals', () => {
  it('examples', () => {
    assert.equal(quotedRate('129.25', '0'), '129.25');
    assert.equal(quotedRate('129.25', '1.5'), '127.31125');
    assert.equal(quotedRate('129.5', '2'), '126.91');
    assert.equal(quotedRate('1532.123456', '0.75'), '1520.63253008');
    assert.equal(quotedRate('100', '99.9999'), '0.0001');
    // 1/3-like results are cut, never rounded up: 0.333333333333333 x 0.99 = 0.32999999999999967 -> 12 decimals, down.
    assert.equal(quotedRate('0.333333333333333', '1'), '0.329999999999');
    // More than 12 decimals from the provider, no margin: cut to 12.
    assert.equal(quotedRate('1.0000000000009', '0'), '1');
    assert.equal(quotedRate('0.0000000000019', '0'), '0.000000000001');
  });

  it('refuses what is not decimal text, and results that are no rate', () => {
    for (const rate of ['', '-1', '1e3', '01.5', '1.', '.5', ' 1', 'NaN']) assert.throws(() => quotedRate(rate, '0'), /plain decimal text/, rate);
    for (const margin of ['100', '-1', '1.23456', '1e1', '', '05']) assert.throws(() => quotedRate('129.25', margin), /FX margin/, margin);
    assert.throws(() => quotedRate('0', '0'), /not a usable rate/);
    assert.throws(() => quotedRate('0.0000000000001', '0'), /not a usable rate/);
    assert.throws(() => quotedRate('1000000000000', '0'), /not a usable rate/);
  });

  it('for any rate and margin: a valid rate text r with r <= exact < r + 10^-12, and never above the provider rate', () => {
    const next = random(37);
    for (let i = 0; i < SAMPLES; i++) {
      const whole = String(Math.floor(next() * 10 ** Math.floor(next() * 7)));
      const decimals = Math.floor(next() * 16);
      const rate = decimals === 0 ? whole : `${whole}.${digits(next, decimals)}`;
      if (!/[1-9]/.test(rate)) continue;
      const marginDecimals = Math.floor(next() * 5);
      const marginWhole = String(Math.floor(next() * 100));
      const margin = marginDecimals === 0 ? marginWhole : `${marginWhole}.${digits(next, marginDecimals)}`;
      const exact = fraction(rate);
      const m = fraction(margin);
      // exact quote = rate x (100 - m) / 100, as a fraction
      const qNum = exact.num * (100n * m.den - m.num);
      const qDen = exact.den * 100n * m.den;
      let result: string;
      try {
        result = quotedRate(rate, margin);
      } catch {
        // Only a quote below 10^-12 may be refused.
        assert.ok(qNum * 10n ** BigInt(RATE_DECIMALS_MAX) < qDen, `${rate} less ${margin} % refused`);
        continue;
      }
      assert.ok(isRateText(result), `${rate} less ${margin} %: ${result}`);
      assert.doesNotMatch(result, /\.\d*0$/, 'no trailing zeros');
      const r = fraction(result);
      // r <= q  <=>  r.num * qDen <= qNum * r.den
      assert.ok(r.num * qDen <= qNum * r.den, `${result} above the exact quote of ${rate} less ${margin} %`);
      // q < r + 10^-12  <=>  qNum * r.den * 10^12 < (r.num * 10^12 + r.den) * qDen
      const unit = 10n ** BigInt(RATE_DECIMALS_MAX);
      assert.ok(qNum * r.den * unit < (r.num * unit + r.den) * qDen, `${result} more than 10^-12 below ${rate} less ${margin} %`);
      assert.ok(r.num * exact.den <= exact.num * r.den, 'never above the provider rate');
    }
  });
});

describe('rateText: a rate as the provider wrote it, to exact decimal text', () => {
  it('any JSON number text of a positive decimal keeps its exact value, exponent forms included', () => {
    const next = random(15);
    for (let i = 0; i < SAMPLES; i++) {
      const significant = 1 + Math.floor(next() * 25);
      const body = `${1 + Math.floor(next() * 9)}${digits(next, significant - 1)}`;
      const point = Math.floor(next() * 15) - 5;
      const plain =
        point <= 0
          ? `0.${'0'.repeat(-point)}${body}`
          : point >= body.length
            ? `${body}${'0'.repeat(point - body.length)}`
            : `${body.slice(0, point)}.${body.slice(point)}`;
      // The same value in exponent form: d.ddd e(point - 1).
      const exponentForm = `${body[0]}${body.length > 1 ? `.${body.slice(1)}` : ''}${next() < 0.5 ? 'e' : 'E'}${point - 1}`;
      for (const source of [plain, exponentForm]) {
        const answer = rateText(source);
        const value = fraction(plainDecimal(plain));
        const inBounds = value.num * 1_000_000n >= value.den && value.num <= 1_000_000_000n * value.den;
        if (!inBounds) {
          assert.ok('problem' in answer, source);
          continue;
        }
        assert.ok('text' in answer, `${source}: ${JSON.stringify(answer)}`);
        const got = fraction(answer.text);
        assert.equal(got.num * value.den, value.num * got.den, `${source} became ${answer.text}`);
        assert.doesNotMatch(answer.text, /^0\d|\.\d*0$/, 'canonical');
      }
    }
  });

  it('examples and refusals', () => {
    assert.deepEqual(rateText('129.25'), { text: '129.25' });
    assert.deepEqual(rateText('1532.1234560'), { text: '1532.123456' });
    assert.deepEqual(rateText('129.50000000000000001'), { text: '129.50000000000000001' });
    assert.deepEqual(rateText('1.5E-6'), { text: '0.0000015' });
    assert.deepEqual(rateText('15e2'), { text: '1500' });
    assert.equal(plainDecimal('1.5e-7'), '0.00000015');
    assert.equal(plainDecimal('2e+21'), '2000000000000000000000');
    assert.equal(plainDecimal('0.10'), '0.1');
    for (const bad of ['0', '0.0', '-1', '-0.5', 'NaN', 'Infinity', '1e-7', '2e9', '1e999999', '01', '1.', '.5', '+1', '1'.repeat(31)]) {
      assert.ok('problem' in rateText(bad), bad);
    }
  });
});

describe('parseJsonKeepingNumbers', () => {
  /** JSON.parse's answer with numbers as their text: what the reader must give, numbers aside. */
  const normalised = (value: unknown): unknown =>
    JSON.parse(JSON.stringify(value, (_key, item: unknown) => (item instanceof JsonNumber ? `#${item.text}` : item)));

  it('reads what JSON.parse reads, numbers kept as written', () => {
    const text = ' {"a": [1, -2.50, 3e+2, {"b": null}], "c": "x\\"\\u00e9", "d": true, "e": false, "__proto__": {"f": 0.1}, "a2": [] , "o": {}}\n';
    const read = parseJsonKeepingNumbers(text);
    assert.deepEqual(normalised(read), {
      a: ['#1', '#-2.50', '#3e+2', { b: null }],
      c: 'x"\u00e9',
      d: true,
      e: false,
      ['__proto__']: { f: '#0.1' },
      a2: [],
      o: {},
    });
    assert.equal(Object.getPrototypeOf(read), Object.prototype, 'a "__proto__" key is data');
    assert.deepEqual(Object.keys(read as object), Object.keys(JSON.parse(text) as object));
  });

  it('refuses what JSON.parse refuses', () => {
    for (const bad of ['', '{', '{"a":1,}', '[1,]', '01', '1.', '{"a" 1}', "{'a':1}", '"\u0001"', '[1] 2', 'tru', 'NaN', '-']) {
      assert.throws(() => JSON.parse(bad), SyntaxError, `JSON.parse takes ${bad}`);
      assert.throws(() => parseJsonKeepingNumbers(bad), JsonSyntaxError, bad);
    }
    // And nesting deeper than any rate table, which JSON.parse would take.
    assert.throws(() => parseJsonKeepingNumbers('['.repeat(40) + ']'.repeat(40)), /nested too deep/);
  });
});

describe('readTable', () => {
  const NOW_MS = 1_764_300_000_000 + 60_000;
  const answer = (rates: string, extra = '') =>
    parseJsonKeepingNumbers(`{"disclaimer": "d", "license": "l", "timestamp": 1764300000, "base": "USD", "rates": ${rates}${extra}}`);

  it('keeps the currencies asked for, each exact or refused with a reason', () => {
    const table = readTable(
      answer('{"KES": 129.50, "NGN": -3, "EUR": 0.92, "PHP": "58.1", "UGX": 3702.500000000000000001}'),
      ['KES', 'NGN', 'PHP', 'GHS', 'UGX'],
      NOW_MS,
    );
    assert.equal(table.publishedAtMs, 1_764_300_000_000);
    assert.deepEqual(
      [...table.rates],
      [
        ['KES', '129.5'],
        ['UGX', '3702.500000000000000001'],
      ],
    );
    assert.deepEqual(
      [...table.refused],
      [
        ['NGN', 'refused: not positive (-3)'],
        ['PHP', 'refused: not a number'],
        ['GHS', 'absent from the answer'],
      ],
    );
  });

  it('refuses an answer that is no USD table', () => {
    assert.throws(() => readTable(parseJsonKeepingNumbers('[]'), ['KES'], NOW_MS), TableUnusable);
    assert.throws(() => readTable(answer('{}', ', "base": "EUR"'), ['KES'], NOW_MS), /base is "EUR"/);
    assert.throws(() => readTable(parseJsonKeepingNumbers('{"timestamp": "1764300000", "base": "USD", "rates": {}}'), ['KES'], NOW_MS), /timestamp/);
    assert.throws(() => readTable(parseJsonKeepingNumbers('{"timestamp": 1.5, "base": "USD", "rates": {}}'), ['KES'], NOW_MS), /timestamp/);
    assert.throws(() => readTable(answer('null'), ['KES'], NOW_MS), /rates/);
    // A table dated ahead of the clock would never age: up to 10 minutes is clock skew, more is refused.
    const dated = (seconds: number) => parseJsonKeepingNumbers(`{"timestamp": ${seconds}, "base": "USD", "rates": {"KES": 129.5}}`);
    assert.equal(readTable(dated(1_764_300_000 + 60 + 600), ['KES'], NOW_MS).rates.get('KES'), '129.5');
    assert.throws(() => readTable(dated(1_764_300_000 + 60 + 601), ['KES'], NOW_MS), /more than 10 minutes ahead of the clock/);
    // An inherited name is no rate.
    assert.deepEqual([...readTable(answer('{}'), ['constructor'], NOW_MS).rates], []);
  });
});
