// What a PayrailError tells the caller beyond its code: the answer's request
// id (X-Request-Id, to quote to support), the cause of a network failure with
// the URL and the number of attempts, and, from send(), the transfer id.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PayrailError } from '../src/index.ts';
import { balance, check, failure, kyc } from './fixtures.ts';
import { KE_TRANSFER, clientWith } from './helpers.ts';

async function rejection(promise: Promise<unknown>): Promise<PayrailError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof PayrailError, String(error));
    return error;
  }
  assert.fail('expected a PayrailError');
}

/** How Node's fetch reports a refused connection: "fetch failed" caused by the system error. */
const refused = (port: number) => ({
  network: 'fetch failed',
  cause: Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:${port}`), { code: 'ECONNREFUSED' }),
});

describe('requestId', () => {
  it('comes from the X-Request-Id of the answer that was refused, on both APIs', async () => {
    const { client } = clientWith([
      { status: 400, body: failure('invalid_request', 'receiver_country must be KE for service 1001'), headers: { 'x-request-id': 'req_check_1' } },
      { status: 400, body: { error: { code: 'invalid_nonce', message: 'used' } }, headers: { 'X-Request-Id': 'req_charge_2' } },
    ]);
    const refusedCheck = await rejection(client.check(KE_TRANSFER));
    assert.deepEqual([refusedCheck.code, refusedCheck.requestId, refusedCheck.transferId], ['invalid_request', 'req_check_1', null]);
    const charge = await rejection(
      client.charge({
        amount: '1.00',
        source: 'nonce-x',
        expiry_month: 12,
        expiry_year: 2030,
        billing_info: { first_name: 'A', last_name: 'B', street: 'S', city: 'C', state: 'TX', zip: '1', country: 'US' },
      }),
    );
    assert.deepEqual([charge.code, charge.requestId], ['invalid_nonce', 'req_charge_2']);
  });

  it('names the answer that could not be read, and the last one of a retried call', async () => {
    const { client } = clientWith(
      [
        { status: 200, body: { success: true, error: '', balance: { balance: 'lots' } }, headers: { 'x-request-id': 'req_odd' } },
        { status: 500, text: '<html>oops</html>', headers: { 'x-request-id': 'req_500_a' } },
        { status: 500, text: '<html>oops</html>', headers: { 'x-request-id': 'req_500_b' } },
      ],
      { max_retries: 1 },
    );
    const odd = await rejection(client.balance());
    assert.deepEqual([odd.code, odd.requestId], ['unexpected_response', 'req_odd']);
    const failing = await rejection(client.balance());
    assert.deepEqual([failing.code, failing.status, failing.requestId], ['internal_server_error', 500, 'req_500_b']);
  });

  it('is null when no answer arrived, or the answer had none', async () => {
    const { client } = clientWith([{ status: 401, body: failure('authentication_error', 'Invalid or missing credentials') }, refused(9)], {
      max_retries: 0,
    });
    assert.equal((await rejection(client.balance())).requestId, null);
    assert.equal((await rejection(client.balance())).requestId, null);
  });
});

describe('network errors', () => {
  it('name the request, the system error and the attempts made, and keep the cause', async () => {
    const { client, fake } = clientWith([refused(9), refused(9), refused(9)]);
    const error = await rejection(client.balance());
    assert.deepEqual([error.code, error.status, error.retryable], ['network_error', 0, true]);
    assert.equal(error.message, 'GET https://sandbox.payrail.test/api/agent_balance failed after 3 attempts: connect ECONNREFUSED 127.0.0.1:9');
    assert.equal(((error.cause as Error).cause as { code: string }).code, 'ECONNREFUSED');
    fake.done();
  });

  it('say a timeout is one', async () => {
    const timeout = Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' });
    const fetchTimingOut = async () => {
      throw timeout;
    };
    const { client } = clientWith([], { fetch: fetchTimingOut, max_retries: 0, timeout_ms: 1234 });
    const error = await rejection(client.balance());
    assert.equal(error.message, 'GET https://sandbox.payrail.test/api/agent_balance failed after 1 attempt: no answer within 1234 ms');
  });
});

describe('send() names its transfer in every error', () => {
  it('the id it made, digits only, whichever step failed', async () => {
    const { client } = clientWith([
      { status: 200, body: balance(100, 0) },
      { status: 200, body: balance(100_000, 0) },
      { status: 200, body: kyc(true, '3000.00', '') },
      { status: 400, body: failure('invalid_request', 'attribute receiverName is required'), headers: { 'x-request-id': 'req_c' } },
      refused(1),
      refused(1),
      refused(1),
    ]);
    const { id: _none, ...noId } = KE_TRANSFER;
    const local = await rejection(client.send(noId));
    assert.equal(local.code, 'insufficient_funds');
    assert.match(local.transferId ?? '', /^[0-9]{19}$/);
    const checked = await rejection(client.send(noId));
    assert.deepEqual([checked.code, checked.requestId], ['invalid_request', 'req_c']);
    assert.match(checked.transferId ?? '', /^[0-9]{19}$/);
    assert.notEqual(checked.transferId, local.transferId);
    const network = await rejection(client.send(noId));
    assert.equal(network.code, 'network_error');
    assert.match(network.transferId ?? '', /^[0-9]{19}$/);
  });

  it('the id it was given, also when the input is refused before any request', async () => {
    const { client, fake } = clientWith([]);
    const badAmount = await rejection(client.send({ ...KE_TRANSFER, id: '42', amount: '1.001' }));
    assert.deepEqual([badAmount.code, badAmount.transferId], ['invalid_amount', '42']);
    assert.equal(fake.sent.length, 0);
  });

  it('wraps an error that is not a PayrailError (from a function given in the options)', async () => {
    const { client } = clientWith(
      [
        { status: 200, body: balance(100_000, 0) },
        { status: 200, body: kyc(true, '3000.00', '') },
        { status: 200, body: check() },
        { status: 200, body: { success: true, error: '', payment_response: { id: '7', payment_id: null, state: '0', substate: '0', code: '0' } } },
      ],
      {
        sleep: async () => {
          throw new RangeError('clock broke');
        },
      },
    );
    const error = await rejection(client.send({ ...KE_TRANSFER, id: '7' }));
    assert.deepEqual([error.code, error.transferId, error.message], ['unexpected_error', '7', 'transfer 7: clock broke']);
    assert.ok(error.cause instanceof RangeError);
  });
});
