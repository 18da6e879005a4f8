// Amounts as integer cents or decimal strings, never floats; phones in every
// accepted form, turned into the E.164 digits the KYC path needs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PayrailError, formatCents, parseDollars } from '../src/index.ts';
import { amountCentsOf, centsOfWireDollars } from '../src/money.ts';
import { cleanPhone, kycDigits } from '../src/phone.ts';

function codeOf(run: () => unknown): [string, number] {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof PayrailError, String(error));
    return [error.code, error.status];
  }
  assert.fail('expected a PayrailError');
}

describe('amounts', () => {
  it('reads decimal strings and integer cents exactly', () => {
    assert.equal(amountCentsOf({ amount: '5' }), 500);
    assert.equal(amountCentsOf({ amount: '5.0' }), 500);
    assert.equal(amountCentsOf({ amount: '0.29' }), 29);
    assert.equal(amountCentsOf({ amount: '1234.56' }), 123456);
    assert.equal(amountCentsOf({ amount_cents: 1 }), 1);
    assert.equal(amountCentsOf({ amount_cents: 100_000_000_000 }), 100_000_000_000);
  });

  it('refuses floats, more decimals, zero, negatives, exponents and both or neither field', () => {
    for (const input of [
      { amount: 10.5 },
      { amount: '10.555' },
      { amount: '0' },
      { amount: '-1' },
      { amount: '1e3' },
      { amount: ' 1' },
      { amount: 'NaN' },
      { amount_cents: 10.5 },
      { amount_cents: 0 },
      { amount_cents: -5 },
      { amount_cents: '100' },
      { amount_cents: 100_000_000_001 },
      { amount: '1', amount_cents: 100 },
      {},
    ]) {
      assert.deepEqual(
        codeOf(() => amountCentsOf(input)),
        ['invalid_amount', 0],
        JSON.stringify(input),
      );
    }
  });

  it('formats and parses cents', () => {
    assert.equal(formatCents(1250), '12.50');
    assert.equal(formatCents(7), '0.07');
    assert.equal(formatCents(-150), '-1.50');
    assert.equal(parseDollars('12.5'), 1250);
    assert.equal(parseDollars('12.505'), null);
    assert.throws(() => formatCents(1.5), RangeError);
  });

  it('reads wire dollars (JSON numbers) into cents without float arithmetic', () => {
    assert.equal(centsOfWireDollars(0.29), 29);
    assert.equal(centsOfWireDollars(1.1), 110);
    assert.equal(centsOfWireDollars(4999.99), 499999);
    assert.equal(centsOfWireDollars('12.30'), 1230);
    assert.equal(centsOfWireDollars(0.001), null);
    assert.equal(centsOfWireDollars(1e21), null);
  });
});

describe('phones', () => {
  it('removes spacing and turns 00 into +', () => {
    assert.equal(cleanPhone('+254 712-345 678', 'receiver_phone'), '+254712345678');
    assert.equal(cleanPhone('(0712) 345.678', 'receiver_phone'), '0712345678');
    assert.equal(cleanPhone('00254712345678', 'receiver_phone'), '+254712345678');
  });

  it('refuses letters and empty text, naming the field', () => {
    assert.deepEqual(
      codeOf(() => cleanPhone('+2547abc', 'receiver_phone')),
      ['invalid_phone_number', 0],
    );
    assert.deepEqual(
      codeOf(() => cleanPhone('', 'sender_phone')),
      ['invalid_phone_number', 0],
    );
    assert.deepEqual(
      codeOf(() => cleanPhone(254712345678, 'sender_phone')),
      ['invalid_phone_number', 0],
    );
    assert.throws(() => cleanPhone('x', 'sender_phone'), /sender_phone must be a phone number/);
  });

  it('gives the KYC path E.164 digits without + from every accepted form', () => {
    assert.equal(kycDigits('+254712345678'), '254712345678');
    assert.equal(kycDigits('254712345678'), '254712345678');
    assert.equal(kycDigits('254712345678', 'KE'), '254712345678');
    assert.equal(kycDigits('0712345678', 'KE'), '254712345678');
    assert.equal(kycDigits('712345678', 'ke'), '254712345678');
    assert.equal(kycDigits('08031234567', 'NG'), '2348031234567');
    assert.equal(kycDigits('09171234567', 'PH'), '639171234567');
    assert.equal(kycDigits('01001234567', 'EG'), '201001234567');
    assert.equal(kycDigits('(555) 555-0123', 'US'), '15555550123');
    assert.equal(kycDigits('15555550123', 'US'), '15555550123');
    assert.equal(kycDigits('89161234567', 'RU'), '79161234567');
  });

  it('asks for E.164 when the country has no known calling code', () => {
    assert.deepEqual(
      codeOf(() => kycDigits('0712345678', 'XX')),
      ['invalid_phone_number', 0],
    );
  });
});
