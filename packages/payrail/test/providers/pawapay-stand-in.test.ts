// The pawaPay stand-in itself, held to pawaPay's documentation: what it
// refuses and how (HTTP status and failure code), idempotency on payoutId,
// the status wrapper, predict-provider's sanitising, active configuration,
// the published keys, and the number that never calls back.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { newPayoutId, startPawaPayStandIn, type PawaPayStandIn } from './pawapay/stand-in.ts';

let standIn: PawaPayStandIn;
before(async () => {
  standIn = await startPawaPayStandIn();
});
after(async () => {
  await standIn.close();
});

// biome-ignore lint/suspicious/noExplicitAny: the tests read pawaPay's documented answers field by field
async function call(method: string, path: string, body?: unknown, token: string | null = standIn.token): Promise<{ status: number; json: any }> {
  const response = await fetch(`${standIn.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
}

const payout = (overrides: Record<string, unknown> = {}) => ({
  payoutId: newPayoutId(),
  amount: '100',
  currency: 'ZMW',
  recipient: { type: 'MMO', accountDetails: { phoneNumber: '260763456789', provider: 'MTN_MOMO_ZMB' } },
  ...overrides,
});

describe('pawapay stand-in', () => {
  it('refuses a missing token 401 NO_AUTHENTICATION and a wrong one 403 AUTHENTICATION_ERROR', async () => {
    assert.deepEqual([(await call('POST', '/v2/payouts', payout(), null)).status, (await call('POST', '/v2/payouts', payout(), 'nope')).status], [401, 403]);
    assert.equal((await call('POST', '/v2/payouts', payout(), 'nope')).json.failureReason.failureCode, 'AUTHENTICATION_ERROR');
  });

  it('accepts a payout once; the same payoutId again is DUPLICATE_IGNORED', async () => {
    const body = payout();
    assert.equal((await call('POST', '/v2/payouts', body)).json.status, 'ACCEPTED');
    assert.equal((await call('POST', '/v2/payouts', body)).json.status, 'DUPLICATE_IGNORED');
    assert.equal(standIn.payouts().filter((entry) => entry.payoutId === body.payoutId).length, 1);
  });

  it('rejects as documented: 400 for malformed requests, 200 REJECTED for amounts, numbers, currencies and providers', async () => {
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ payoutId: 'not-a-uuid' }, 400, 'INVALID_PARAMETER'],
      [{ extra: 1 }, 400, 'UNSUPPORTED_PARAMETER'],
      [{ customerMessage: 'no' }, 400, 'INVALID_PARAMETER'],
      [{ metadata: [{ a: '1' }, { a: '2' }] }, 400, 'DUPLICATE_METADATA_FIELD'],
      [{ amount: '100.555' }, 200, 'INVALID_AMOUNT'],
      [{ amount: '0100' }, 200, 'INVALID_AMOUNT'],
      [{ amount: '999999999' }, 200, 'AMOUNT_OUT_OF_BOUNDS'],
      [{ currency: 'USD' }, 200, 'INVALID_CURRENCY'],
      [{ recipient: { type: 'MMO', accountDetails: { phoneNumber: '2607634', provider: 'MTN_MOMO_ZMB' } } }, 200, 'INVALID_PHONE_NUMBER'],
      [{ recipient: { type: 'MMO', accountDetails: { phoneNumber: '260763456789', provider: 'NOPE_ZMB' } } }, 200, 'INVALID_PROVIDER'],
      [
        { currency: 'RWF', amount: '100.50', recipient: { type: 'MMO', accountDetails: { phoneNumber: '250783456789', provider: 'MTN_MOMO_RWA' } } },
        200,
        'INVALID_AMOUNT',
      ],
    ];
    for (const [overrides, status, code] of cases) {
      const answer = await call('POST', '/v2/payouts', payout(overrides));
      assert.deepEqual([answer.status, answer.json.status, answer.json.failureReason?.failureCode], [status, 'REJECTED', code], JSON.stringify(overrides));
    }
  });

  it('answers status checks FOUND with data, or NOT_FOUND', async () => {
    const body = payout({
      recipient: { type: 'MMO', accountDetails: { phoneNumber: '260763456089', provider: 'MTN_MOMO_ZMB' } },
      metadata: [{ transferId: '9' }],
    });
    await call('POST', '/v2/payouts', body);
    const found = await call('GET', `/v2/payouts/${body.payoutId}`);
    assert.equal(found.json.status, 'FOUND');
    assert.deepEqual(
      [found.json.data.status, found.json.data.failureReason.failureCode, found.json.data.metadata],
      ['FAILED', 'RECIPIENT_NOT_FOUND', { transferId: '9' }],
    );
    assert.deepEqual((await call('GET', `/v2/payouts/${newPayoutId()}`)).json, { status: 'NOT_FOUND' });
  });

  it('predicts the provider of a number after sanitising it, and refuses one of no served country', async () => {
    assert.deepEqual((await call('POST', '/v2/predict-provider', { phoneNumber: '+260 763-456789' })).json, {
      country: 'ZMB',
      provider: 'MTN_MOMO_ZMB',
      phoneNumber: '260763456789',
    });
    assert.equal((await call('POST', '/v2/predict-provider', { phoneNumber: '+4915112345678' })).json.failureReason.failureCode, 'INVALID_PHONE_NUMBER');
  });

  it('publishes active configuration with decimals per provider, and its callback key', async () => {
    const conf = (await call('GET', '/v2/active-conf')).json;
    const rwanda = conf.countries.find((country: { country: string }) => country.country === 'RWA');
    assert.equal(rwanda.providers[0].currencies[0].operationTypes.PAYOUT.decimalsInAmount, 'NONE');
    assert.equal(conf.signatureConfiguration.signedCallbacks, true);
    const keys = (await call('GET', '/v2/public-key/http')).json;
    assert.deepEqual(keys, [{ id: standIn.callbackKey.id, key: standIn.callbackKey.publicKeyPem }]);
  });

  it('the number ending 129 stays PROCESSING and never calls back; others call back once final', async () => {
    const posts: string[] = [];
    const receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        posts.push(JSON.parse(Buffer.concat(chunks).toString('utf8')).payoutId);
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const address = receiver.address() as { port: number };
      standIn.callbackTo(`http://127.0.0.1:${address.port}/providers/pawapay/callbacks`);
      const stuck = payout({ recipient: { type: 'MMO', accountDetails: { phoneNumber: '260763456129', provider: 'MTN_MOMO_ZMB' } } });
      const paid = payout();
      await call('POST', '/v2/payouts', stuck);
      await call('POST', '/v2/payouts', paid);
      await standIn.callbacksIdle();
      assert.equal((await call('GET', `/v2/payouts/${stuck.payoutId}`)).json.data.status, 'PROCESSING');
      assert.deepEqual(posts, [paid.payoutId]);
    } finally {
      standIn.callbackTo(null);
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});
