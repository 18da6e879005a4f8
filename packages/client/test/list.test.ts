// transfers.list(): an async iterator over pages of GET /api/transfers,
// following the cursor until has_more is false, fetching each page only when
// the loop asks; bad options refused before any request. And gateway_id on
// every status.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PayrailError, type TransferPage } from '../src/index.ts';
import { status } from './fixtures.ts';
import { clientWith } from './helpers.ts';

function item(id: string, state: number, extra: { attribute?: Array<{ name: string; value: string }>; amount?: string } = {}) {
  return {
    id,
    state,
    substate: 0,
    final: state >= 60 ? 1 : 0,
    code: 0,
    attribute: extra.attribute ?? [],
    server_time: '2026-01-01T00:00:05.000Z',
    trans: null,
    sum_prov: null,
    amount: extra.amount ?? '10.00',
    receiver_phone: '+254712345678',
    service: '1001',
    receiver_country: 'KE',
    receiver_currency: 'KES',
    created_at: '2026-01-01T00:00:00.000Z',
  };
}

const page = (items: unknown[], has_more: boolean) => ({ success: true, error: '', transfers: items, has_more });

describe('transfers.list', () => {
  it('walks the pages by cursor, with the filters on every request, and stops when there is no more', async () => {
    const { client, fake } = clientWith([
      { status: 200, body: page([item('3', 60), item('2', 60)], true) },
      { status: 200, body: page([item('1', 60, { attribute: [{ name: 'gatewayId', value: '100000001' }], amount: '2.50' })], false) },
    ]);
    const pages: TransferPage[] = [];
    for await (const one of client.transfers.list({ state: 60, limit: 2, created_from: new Date(Date.UTC(2026, 0, 1)), created_to: '2026-02-01T00:00:00Z' })) {
      pages.push(one);
    }
    assert.deepEqual(
      fake.sent.map((request) => request.url.slice(request.url.indexOf('/api/'))),
      [
        '/api/transfers?state=60&created_from=2026-01-01T00%3A00%3A00.000Z&created_to=2026-02-01T00%3A00%3A00Z&limit=2',
        '/api/transfers?state=60&created_from=2026-01-01T00%3A00%3A00.000Z&created_to=2026-02-01T00%3A00%3A00Z&limit=2&starting_after=2',
      ],
    );
    assert.deepEqual(
      pages.map((one) => [one.has_more, one.transfers.map((t) => t.id)]),
      [
        [true, ['3', '2']],
        [false, ['1']],
      ],
    );
    const last = pages[1]!.transfers[0]!;
    assert.deepEqual(
      [last.outcome, last.final, last.amount_cents, last.amount, last.gateway_id, last.receiver_phone, last.service, last.created_at],
      ['succeeded', true, 250, '2.50', '100000001', '+254712345678', '1001', '2026-01-01T00:00:00.000Z'],
    );
    assert.equal(fake.sent[0]!.headers['api-key'] !== undefined, true);
    fake.done();
  });

  it('fetches a page only when the loop asks for it, and starts after a given id', async () => {
    const { client, fake } = clientWith([{ status: 200, body: page([item('9', 0)], true) }]);
    const pages = client.transfers.list({ starting_after: '10' });
    assert.equal(fake.sent.length, 0);
    const first = await pages.next();
    assert.equal(first.done, false);
    assert.equal(fake.sent[0]!.url.endsWith('/api/transfers?starting_after=10'), true);
    await pages.return(undefined);
    fake.done();
  });

  it('stops on an empty page even if the server says more follow', async () => {
    const { client, fake } = clientWith([{ status: 200, body: page([], true) }]);
    let count = 0;
    for await (const _page of client.transfers.list()) count += 1;
    assert.equal(count, 1);
    fake.done();
  });

  it('refuses bad options at the call, before any request', () => {
    const { client, fake } = clientWith([]);
    const refusals: Array<[() => unknown, string]> = [
      [() => client.transfers.list({ limit: 0 }), 'limit must be an integer from 1 to 100'],
      [() => client.transfers.list({ limit: 101 }), 'limit must be an integer from 1 to 100'],
      [() => client.transfers.list({ state: 20 as 0 }), 'state must be one of 0, 40, 60, 80'],
      [() => client.transfers.list({ created_from: new Date(Number.NaN) }), 'created_from is an invalid Date'],
      [() => client.transfers.list({ starting_after: 'abc' }), 'id must be a string of digits (at most 40), got "abc"'],
    ];
    for (const [call, message] of refusals) {
      assert.throws(call, (error: unknown) => error instanceof PayrailError && error.code === 'invalid_request' && error.message === message, message);
    }
    assert.equal(fake.sent.length, 0);
  });
});

describe('gateway_id', () => {
  it('is the gatewayId status attribute: the charge paying for the transfer', async () => {
    const { client } = clientWith([
      { status: 200, body: status('5', 60, 0, 1, [{ name: 'gatewayId', value: '100000007' }]) },
      { status: 200, body: status('6', 40, 1, 0) },
    ]);
    assert.equal((await client.status('5')).gateway_id, '100000007');
    assert.equal((await client.status('6')).gateway_id, null);
  });
});
