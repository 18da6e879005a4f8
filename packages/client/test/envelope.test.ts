// How the SDK reads answers: both forms of the transfer API's `success`, the
// body deciding over the HTTP status, and answers in no documented shape.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PayrailError } from '../src/index.ts';
import { readPayinAnswer, readTransferAnswer } from '../src/transport.ts';
import { balance, failure, rejected } from './fixtures.ts';

const text = (value: unknown) => JSON.stringify(value);

function errorOf(run: () => unknown): PayrailError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof PayrailError);
    return error;
  }
  assert.fail('expected a PayrailError');
}

describe('transfer envelope', () => {
  it('accepts success as boolean true and as the string "true"', () => {
    assert.deepEqual(readTransferAnswer(200, text(balance(5, 0))), balance(5, 0));
    const stringForm = { ...balance(5, 0), success: 'true' };
    assert.deepEqual(readTransferAnswer(200, text(stringForm)), stringForm);
  });

  it('reads a failure with success "false" into code, status and message', () => {
    const error = errorOf(() => readTransferAnswer(400, text(failure('insufficient_funds', 'balance too low'))));
    assert.deepEqual([error.code, error.status, error.message, error.retryable], ['insufficient_funds', 400, 'balance too low', false]);
  });

  it('reads a failure with success as boolean false', () => {
    const error = errorOf(() => readTransferAnswer(400, text({ success: false, error: { message: 'bad id', code: 'invalid_request' } })));
    assert.deepEqual([error.code, error.status, error.message], ['invalid_request', 400, 'bad id']);
  });

  it('lets the body decide when HTTP 200 carries success "false"', () => {
    const error = errorOf(() => readTransferAnswer(200, text(failure('kyc_not_verified', 'limit 100.00'))));
    assert.deepEqual([error.code, error.status], ['kyc_not_verified', 200]);
  });

  it('marks internal_server_error retryable', () => {
    const error = errorOf(() => readTransferAnswer(500, text(failure('internal_server_error', 'Server error; retry'))));
    assert.deepEqual([error.code, error.status, error.retryable], ['internal_server_error', 500, true]);
  });

  it('treats a 5xx without a Payrail body as internal_server_error (retryable)', () => {
    const error = errorOf(() => readTransferAnswer(502, '<html>Bad Gateway</html>'));
    assert.deepEqual([error.code, error.status, error.retryable], ['internal_server_error', 502, true]);
  });

  it('reports a 4xx without a Payrail body as unexpected_response', () => {
    const error = errorOf(() => readTransferAnswer(404, 'Not Found'));
    assert.deepEqual(
      [error.code, error.status, error.message, error.retryable],
      ['unexpected_response', 404, 'HTTP 404 with an unexpected body: Not Found', false],
    );
  });

  it('keeps the text of an error given as a plain string', () => {
    const error = errorOf(() => readTransferAnswer(400, text({ success: 'false', error: 'amount is invalid' })));
    assert.deepEqual([error.code, error.message], ['unexpected_response', 'amount is invalid']);
  });

  it('refuses a body with no success field', () => {
    const error = errorOf(() => readTransferAnswer(200, text({ balance: { balance: 1, overdraft: 0 } })));
    assert.equal(error.code, 'unexpected_response');
  });
});

describe('payin answers', () => {
  it('returns a 200 body as is (shape A or B)', () => {
    assert.deepEqual(readPayinAnswer(200, text({ id: '7', status: 'declined' })), { id: '7', status: 'declined' });
  });

  it('reads shape C into a PayrailError', () => {
    const error = errorOf(() => readPayinAnswer(400, text(rejected('invalid_nonce', 'nonce already used'))));
    assert.deepEqual([error.code, error.status, error.message], ['invalid_nonce', 400, 'nonce already used']);
  });

  it('reads 401 and 403 answers', () => {
    assert.equal(errorOf(() => readPayinAnswer(401, text(rejected('authentication_error', 'invalid API key or PIN')))).status, 401);
    assert.equal(errorOf(() => readPayinAnswer(403, text(rejected('permission_denied', 'no')))).code, 'permission_denied');
  });
});
