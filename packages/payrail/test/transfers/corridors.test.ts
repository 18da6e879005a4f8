// The corridors file: the shipped sandbox table is exactly docs/api-decisions.md section 5,
// and a bad file is refused at start with every problem named.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { loadCorridors } from '../../src/corridors-file.ts';
import { CorridorFileError, parseCorridors } from '../../src/domain/corridors.ts';
import { tempDir } from '../helpers/stores.ts';

describe('corridors', () => {
  it('the sandbox file holds the corridors of docs/api-decisions.md section 5', () => {
    const table = loadCorridors(loadConfig({}).corridorsFile);
    const rows = table.corridors.map((c) => [
      c.service,
      c.country,
      c.currency,
      c.currencyMinorUnits,
      c.fxRate,
      c.minAmountCents,
      c.maxAmountCents,
      c.requiredAttributes.map((a) => (a.allowedValues === null ? a.name : `${a.name}=${a.allowedValues.join('|')}`)).join(' '),
    ]);
    assert.deepEqual(rows, [
      ['1001', 'KE', 'KES', 2, '129.25', 100, 250_000, ''],
      [
        '1002',
        'NG',
        'NGN',
        2,
        '1530.50',
        500,
        500_000,
        'receiverFirstName receiverLastName receiverAccType=1 receiverIssuerCode receiverAccountNumber receiverBankName',
      ],
      ['1003', 'PH', 'PHP', 2, '58.10', 100, 200_000, 'receiverName'],
      ['1004', 'GH', 'GHS', 2, '15.40', 100, 200_000, 'receiverFirstName receiverLastName receiverIdType=2|3 receiverIdNumber'],
      ['1005', 'UG', 'UGX', 0, '3680', 100, 150_000, 'receiverName'],
      ['1271', 'EG', 'EGP', 2, '48.55', 100, 300_000, 'receiverName'],
    ]);
    assert.equal(table.byService('1005')?.currency, 'UGX');
    assert.equal(table.byService('9999'), undefined);
  });

  it('refuses a bad document, listing every problem', () => {
    const bad = {
      corridors: [
        {
          service: '10a',
          country: 'Kenya',
          currency: 'KES',
          currency_minor_units: 2,
          fx_rate: '1.5e2',
          min_amount: '1.00',
          max_amount: '0.50',
          required_attributes: [],
        },
        {
          service: '1002',
          country: 'NG',
          currency: 'ngn',
          currency_minor_units: 7,
          fx_rate: '0',
          min_amount: 1,
          max_amount: '10.00',
          required_attributes: [{ name: 'x', allowed_values: [] }, { name: 'x' }],
        },
        { service: '1002', country: 'NG', currency: 'NGN', currency_minor_units: 2, fx_rate: '1', min_amount: '1.00', max_amount: '10.00' },
      ],
    };
    assert.throws(
      () => parseCorridors(bad, 'bad.json'),
      (error: unknown) => {
        assert.ok(error instanceof CorridorFileError);
        assert.deepEqual(error.problems, [
          'corridors[0].service must be a string of 1 to 10 digits, got "10a"',
          'corridors[0].country must be an ISO 3166-1 alpha-2 code such as "KE", got "Kenya"',
          'corridors[0].fx_rate must be a positive decimal string such as "129.25", got "1.5e2"',
          'corridors[0]: min_amount is above max_amount',
          'corridors[1].currency must be an ISO 4217 code such as "KES", got "ngn"',
          'corridors[1].currency_minor_units must be an integer from 0 to 4, got 7',
          'corridors[1].fx_rate must be greater than zero',
          'corridors[1].min_amount must be a dollar amount string such as "1.00", got 1',
          'corridors[1].required_attributes[0].allowed_values must be a non-empty array of non-empty strings',
          'corridors[1].required_attributes[1]: x is listed twice',
          'corridors[2].service 1002 appears twice',
          'corridors[2].required_attributes must be an array (empty for none)',
        ]);
        assert.match(error.message, /^invalid corridors file bad\.json:\n {2}- corridors\[0\]\.service/);
        return true;
      },
    );
    assert.throws(() => parseCorridors({ corridors: [] }), /non-empty "corridors" array/);
  });

  it('names the file when it is not JSON', () => {
    const file = path.join(tempDir(), 'corridors.json');
    fs.writeFileSync(file, '{ not json');
    assert.throws(
      () => loadCorridors(file),
      (error: unknown) => error instanceof CorridorFileError && error.file === file && /cannot read it as JSON/.test(error.message),
    );
  });
});
