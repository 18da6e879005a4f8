// The card lifecycle methods: against recorded answers (what is sent, how
// answers and lists are read, what is refused before sending) and against a
// real sandbox server (authorize, capture, settle, refund, list).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSandbox } from '../../../examples/local-sandbox.mjs';
import { Payrail, PayrailError } from '../src/index.ts';
import { chargeApproved, KEYS, rejected } from './fixtures.ts';
import { clientWith } from './helpers.ts';

const BASIC = `Basic ${Buffer.from(`${KEYS.source}:${KEYS.pin}`).toString('base64')}`;

/** A transaction in shape A with the lifecycle fields set. */
function transaction(reference: number, amount: number, status: string, details: Record<string, unknown> = {}) {
  const body = chargeApproved(reference, amount) as unknown as { transaction: Record<string, Record<string, unknown>> };
  body.transaction.status_details = { status };
  body.transaction.transaction_details = { ...body.transaction.transaction_details, ...details };
  return body;
}

describe('card lifecycle methods', () => {
  it('capture posts the reference number and the amount as exact dollars, with an Idempotency-Key; reads the captured transaction', async () => {
    const { client, fake } = clientWith(
      [{ status: 200, body: transaction(7, 12.5, 'captured', { batch_id: 3 }), expect: { method: 'POST', path: '/api/v2/transactions/capture' } }],
      {
        idempotency_key: () => 'cap-key',
      },
    );
    const captured = await client.capture('7', { amount: '12.50' });
    assert.deepEqual(
      [captured.reference_number, captured.transaction_status, captured.type, captured.moved_cents, captured.batch_id],
      ['7', 'captured', 'charge', 1250, 3],
    );
    assert.equal(fake.sent[0]!.body, '{"reference_number":7,"amount":12.5}');
    assert.equal(fake.sent[0]!.headers.authorization, BASIC);
    assert.equal(fake.sent[0]!.headers['idempotency-key'], 'cap-key');
    fake.done();
  });

  it('refund reads the refund transaction naming the refunded one; void and reversal send no amount unless given', async () => {
    const { client, fake } = clientWith([
      { status: 200, body: transaction(9, 5, 'captured', { type: 'refund', reference_number: '7' }) },
      { status: 200, body: transaction(7, 20, 'voided') },
      { status: 200, body: transaction(7, 20, 'voided') },
    ]);
    const refund = await client.refund(7, { amount_cents: 500 });
    assert.deepEqual([refund.type, refund.refunded_reference, refund.moved_cents], ['refund', '7', 500]);
    assert.equal((await client.voidTransaction(7)).transaction_status, 'voided');
    await client.reversal(7);
    assert.deepEqual(
      fake.sent.map((r) => [r.path, r.body]),
      [
        ['/api/v2/transactions/refund', '{"reference_number":7,"amount":5}'],
        ['/api/v2/transactions/void', '{"reference_number":7}'],
        ['/api/v2/transactions/reversal', '{"reference_number":7}'],
      ],
    );
    fake.done();
  });

  it('reads lists (JSON arrays) and batches, and passes the filters as a query string', async () => {
    const { client, fake } = clientWith([
      { status: 200, body: [transaction(2, 1, 'settled'), transaction(1, 2, 'approved')] },
      {
        status: 200,
        body: [
          {
            id: 4,
            status: 'closed',
            opened_at: 'a',
            closed_at: 'b',
            transaction_count: 2,
            sales_count: 1,
            sales_amount: 20,
            refunds_count: 1,
            refunds_amount: 5.5,
            net_amount: 14.5,
          },
        ],
      },
    ]);
    const list = await client.listTransactions({ status: 'settled', date_from: '2026-03-01', limit: 5 });
    assert.deepEqual(
      list.map((t) => [t.reference_number, t.transaction_status]),
      [
        ['2', 'settled'],
        ['1', 'approved'],
      ],
    );
    assert.equal(fake.sent[0]!.url.split('?')[1], 'status=settled&date_from=2026-03-01&limit=5');
    const [batch] = await client.listBatches();
    assert.deepEqual([batch!.id, batch!.sales_amount_cents, batch!.refunds_amount_cents, batch!.net_amount_cents], [4, 2000, 550, 1450]);
    fake.done();
  });

  it('refuses a bad reference or a float amount before sending; a refusal of the server is a PayrailError', async () => {
    const { client, fake } = clientWith([{ status: 400, body: rejected('invalid_amount', 'amount exceeds the refundable 3.00 of reference_number 7') }]);
    await assert.rejects(client.capture('12ab'), (error: unknown) => error instanceof PayrailError && error.code === 'invalid_request');
    await assert.rejects(
      client.refund(7, { amount: 3.5 as unknown as string }),
      (error: unknown) => error instanceof PayrailError && error.code === 'invalid_amount',
    );
    await assert.rejects(
      client.refund(7, { amount: '9.00' }),
      (error: unknown) => error instanceof PayrailError && error.code === 'invalid_amount' && error.status === 400,
    );
    assert.equal(fake.sent.length, 1);
    fake.done();
  });
});

interface Sandbox {
  url: string;
  merchant: { merchant_id: string; transfer_api_key: string; source: { api_key: string; pin: string; tokenization_token: string } };
  cli(args: string[]): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

describe('card lifecycle against a real server', () => {
  let sandbox: Sandbox;
  let payrail: Payrail;
  const billing = { first_name: 'Ada', last_name: 'Lovelace', street: '1 Main St', city: 'Springfield', state: 'IL', zip: '62701', country: 'US' };

  before(async () => {
    sandbox = (await startSandbox({ fund: '100.00' })) as Sandbox;
    const { api_key, pin, tokenization_token } = sandbox.merchant.source;
    payrail = new Payrail({
      base_url: sandbox.url,
      api_key: sandbox.merchant.transfer_api_key,
      payin: { api_key, pin, tokenization_token },
      retry_delay_ms: 1,
    });
  });
  after(async () => {
    const ledger = await sandbox.cli(['ledger', 'verify']);
    await sandbox.stop();
    assert.deepEqual(ledger.problems, []);
  });

  it('authorizes, captures part, settles, refunds part, and lists and reads what happened', async () => {
    const card = { expiry_month: 12, expiry_year: 2030, billing_info: billing };
    const { nonce } = await payrail.tokenize({ card_number: '4111111111111111', expiry_month: 12, expiry_year: 2030, cvv2: '123' });
    const authorization = await payrail.authorize({ ...card, source: nonce, amount: '40.00' });
    assert.deepEqual([authorization.transaction_status, authorization.moved_cents], ['approved', 0]);
    const captured = await payrail.capture(authorization.reference_number, { amount: '30.00' });
    assert.deepEqual([captured.transaction_status, captured.moved_cents], ['captured', 3000]);
    const [closed] = await payrail.sandbox.closeBatch();
    assert.equal(closed!.sales_amount_cents, 3000);
    const refund = await payrail.refund(captured.reference_number, { amount: '10.00' });
    assert.deepEqual([refund.type, refund.refunded_reference, refund.moved_cents], ['refund', captured.reference_number, 1000]);
    const refunds = await payrail.listTransactions({ type: 'refund' });
    assert.deepEqual(
      refunds.map((t) => t.reference_number),
      [refund.reference_number],
    );
    assert.equal((await payrail.getTransaction(captured.reference_number)).transaction_status, 'settled');
    const batch = await payrail.getBatch(closed!.id);
    assert.equal(batch.status, 'closed');
    assert.deepEqual(
      (await payrail.listBatchTransactions(closed!.id)).map((t) => t.reference_number),
      [captured.reference_number],
    );
    const { nonce: checkNonce } = await payrail.tokenize({ card_number: '4000000000000101', expiry_month: 12, expiry_year: 2030, cvv2: '123' });
    const verified = await payrail.verify({ ...card, source: checkNonce });
    assert.deepEqual([verified.type, verified.transaction_status, verified.cvv2_result_code, verified.moved_cents], ['verify', 'approved', 'N', 0]);
  });
});
