// The surcharge methods against recorded answers: what is sent (Basic auth,
// the lookup's two fields only), how the answers are read, and that a lookup,
// which changes nothing, is retried after a server error.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KEYS } from './fixtures.ts';
import { clientWith } from './helpers.ts';

const BASIC = `Basic ${Buffer.from(`${KEYS.source}:${KEYS.pin}`).toString('base64')}`;
const SETTINGS = { card: { type: 'percent', value: 3.5 }, check: { type: 'percent', value: 0 } };
const LOOKUP = { surcharge: { type: 'percent', value: 3.5 }, bin_type: 'C', payment_type: 'card' };

describe('surcharge methods', () => {
  it('getSurchargeSettings reads both payment types with Basic auth', async () => {
    const { client, fake } = clientWith([{ status: 200, body: SETTINGS, expect: { method: 'GET', path: '/api/v2/surcharge' } }]);
    assert.deepEqual(await client.getSurchargeSettings(), SETTINGS);
    assert.equal(fake.sent[0]!.headers.authorization, BASIC);
    fake.done();
  });

  it('lookupSurcharge posts source_type and source only, and is retried after a server error', async () => {
    const { client, fake } = clientWith([
      { status: 500, body: { error: { code: 'internal_server_error', message: 'oops' } }, expect: { method: 'POST', path: '/api/v2/surcharge' } },
      { status: 200, body: LOOKUP, expect: { method: 'POST', path: '/api/v2/surcharge' } },
    ]);
    const lookup = { source_type: 'pm', source: '12', extra: 'not sent' } as const;
    assert.deepEqual(await client.lookupSurcharge(lookup), LOOKUP);
    assert.equal(fake.sent[1]!.body, '{"source_type":"pm","source":"12"}');
    assert.equal(fake.sent[1]!.headers.authorization, BASIC);
    fake.done();
  });
});
