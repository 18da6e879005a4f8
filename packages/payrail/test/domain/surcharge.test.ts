// The surcharge's one rounding rule and the settings' text (domain/surcharge.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSurchargeOption, surchargeCentsOf, surchargeWire } from '../../src/domain/surcharge.ts';

const percent = (thousandthsOfPercent: number) => ({ kind: 'percent', thousandthsOfPercent }) as const;

describe('surchargeCentsOf', () => {
  it('rounds a percentage half up to the cent', () => {
    assert.equal(surchargeCentsOf(percent(3500), 1010), 35); // 35.35
    assert.equal(surchargeCentsOf(percent(3500), 1030), 36); // 36.05
    assert.equal(surchargeCentsOf(percent(1500), 100), 2); // 1.5: half goes up
    assert.equal(surchargeCentsOf(percent(1499), 100), 1); // 1.499
    assert.equal(surchargeCentsOf(percent(2999), 10_000_000), 299_900);
    assert.equal(surchargeCentsOf(percent(10_000), 10_000_000), 1_000_000);
  });

  it('adds a fixed amount as is, and nothing for none', () => {
    assert.equal(surchargeCentsOf({ kind: 'currency', amountCents: 100 }, 50), 100);
    assert.equal(surchargeCentsOf({ kind: 'none' }, 123_456), 0);
  });

  it('refuses an amount that is not a whole number of cents (a programming error)', () => {
    assert.throws(() => surchargeCentsOf(percent(1000), 10.5));
    assert.throws(() => surchargeCentsOf(percent(1000), -1));
  });
});

describe('parseSurchargeOption', () => {
  it('reads percent:VALUE exactly, currency:DOLLARS in cents, and none', () => {
    assert.deepEqual(parseSurchargeOption('percent:3.5'), { ok: true, setting: percent(3500) });
    assert.deepEqual(parseSurchargeOption('percent:2.999'), { ok: true, setting: percent(2999) });
    assert.deepEqual(parseSurchargeOption('percent:10'), { ok: true, setting: percent(10_000) });
    assert.deepEqual(parseSurchargeOption('currency:1.00'), { ok: true, setting: { kind: 'currency', amountCents: 100 } });
    assert.deepEqual(parseSurchargeOption('currency:0.5'), { ok: true, setting: { kind: 'currency', amountCents: 50 } });
    assert.deepEqual(parseSurchargeOption('none'), { ok: true, setting: { kind: 'none' } });
    // Zero charges nothing: it is none.
    assert.deepEqual(parseSurchargeOption('percent:0'), { ok: true, setting: { kind: 'none' } });
  });

  it('refuses what is not exact or out of bounds', () => {
    for (const text of [
      'percent:3.5555',
      'percent:10.001',
      'percent:-1',
      'percent:1e1',
      'percent:',
      'currency:1.005',
      'currency:100.01',
      'flat:1',
      '3.5',
      'percent:03',
    ]) {
      assert.equal(parseSurchargeOption(text).ok, false, text);
    }
  });
});

describe('surchargeWire', () => {
  it('shows none as percent 0, a percentage as its number, a fixed amount in dollars', () => {
    assert.deepEqual(surchargeWire({ kind: 'none' }), { type: 'percent', value: 0 });
    assert.deepEqual(surchargeWire(percent(3500)), { type: 'percent', value: 3.5 });
    assert.deepEqual(surchargeWire({ kind: 'currency', amountCents: 150 }), { type: 'currency', value: 1.5 });
  });
});
