// Checks (ACH) against recorded answers: what a check charge, a check
// credit, a saved check and the sandbox's ACH clock send, how their answers
// (check_details, the check statuses, check payment methods) are read, and
// what is refused before sending, without ever repeating the account number.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EVENT_TYPES, isCheckPaymentMethod, PayrailError } from '../src/index.ts';
import { chargeApproved, chargeDeclined, KEYS } from './fixtures.ts';
import { clientWith } from './helpers.ts';

const BASIC = `Basic ${Buffer.from(`${KEYS.source}:${KEYS.pin}`).toString('base64')}`;
const ACCOUNT = { name: 'Ada Lovelace', routing_number: '011000015', account_number: '000123456789' } as const;

/** A check transaction in shape A: no card, its check_details and its status. */
function checkTransaction(reference: number, amount: number, status: string, returned: { code: string; reason: string; at: string } | null = null) {
  const body = chargeApproved(reference, amount) as unknown as Record<string, unknown> & { transaction: Record<string, unknown> };
  body.card_type = '';
  body.last_4 = '';
  delete body.transaction.card_details;
  body.transaction.status_details = { status };
  body.transaction.transaction_details = { ...(body.transaction.transaction_details as object), batch_id: null };
  body.transaction.check_details = {
    name: 'Ada Lovelace',
    routing_number: '011000015',
    account_number_last4: '6789',
    account_type: 'Checking',
    sec_code: 'WEB',
    returned_at: returned?.at ?? null,
    returned_code: returned?.code ?? null,
    returned_reason: returned?.reason ?? null,
  };
  return body;
}

const CHECK_METHOD = {
  id: 12,
  customer_id: 7,
  payment_method_type: 'check',
  card_type: null,
  expiry_month: null,
  expiry_year: null,
  name: 'Ada Lovelace',
  routing_number: '011000015',
  account_type: 'Checking',
  sec_code: 'PPD',
  last4: '6789',
  account_number: null,
  created_at: '2026-01-01T00:00:00.000Z',
};

/** Asserts `promise` is refused before sending with invalid_request whose message names `field` and never the account number. */
async function refusedBeforeSending(promise: Promise<unknown>, field: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof PayrailError);
    assert.equal(error.code, 'invalid_request');
    assert.match(error.message, field);
    assert.ok(!error.message.includes(ACCOUNT.account_number));
    return true;
  });
}

describe('checks', () => {
  it('chargeCheck posts the account and the amount as exact dollars with an Idempotency-Key, and reads a pending check', async () => {
    const { client, fake } = clientWith(
      [{ status: 200, body: checkTransaction(31, 42.5, 'pending'), expect: { method: 'POST', path: '/api/v2/transactions/charge' } }],
      { idempotency_key: () => 'check-key' },
    );
    const check = await client.chargeCheck({
      ...ACCOUNT,
      account_type: 'Checking',
      sec_code: 'WEB',
      amount: '42.50',
      transaction_details: { order_number: 'A-1' },
    });
    assert.equal(
      fake.sent[0]!.body,
      '{"amount":42.5,"name":"Ada Lovelace","routing_number":"011000015","account_number":"000123456789","account_type":"Checking","sec_code":"WEB","transaction_details":{"order_number":"A-1"}}',
    );
    assert.equal(fake.sent[0]!.headers.authorization, BASIC);
    assert.equal(fake.sent[0]!.headers['idempotency-key'], 'check-key');
    assert.deepEqual(
      [check.reference_number, check.transaction_status, check.type, check.moved_cents, check.batch_id, check.amount_cents],
      ['31', 'pending', 'charge', 0, null, 4250],
    );
    assert.deepEqual(check.check_details, {
      name: 'Ada Lovelace',
      routing_number: '011000015',
      account_number_last4: '6789',
      account_type: 'Checking',
      sec_code: 'WEB',
      returned_at: null,
      returned_code: null,
      returned_reason: null,
    });
    assert.ok(!JSON.stringify(check).includes('000123456789'));
    fake.done();
  });

  it('reads the check statuses: originated and returned moved nothing, settled moved the amount, the return is in check_details', async () => {
    const { client, fake } = clientWith([
      { status: 200, body: checkTransaction(31, 42.5, 'originated') },
      { status: 200, body: checkTransaction(31, 42.5, 'settled') },
      { status: 200, body: checkTransaction(31, 42.5, 'returned', { code: 'R01', reason: 'Insufficient funds', at: '2026-01-07' }) },
      { status: 200, body: [checkTransaction(31, 42.5, 'returned', { code: 'R01', reason: 'Insufficient funds', at: '2026-01-07' })] },
    ]);
    const originated = await client.getTransaction(31);
    assert.deepEqual([originated.transaction_status, originated.moved_cents], ['originated', 0]);
    const settled = await client.getTransaction(31);
    assert.deepEqual([settled.transaction_status, settled.moved_cents], ['settled', 4250]);
    const returned = await client.getTransaction(31);
    assert.deepEqual(
      [
        returned.transaction_status,
        returned.moved_cents,
        returned.check_details?.returned_code,
        returned.check_details?.returned_reason,
        returned.check_details?.returned_at,
      ],
      ['returned', 0, 'R01', 'Insufficient funds', '2026-01-07'],
    );
    const listed = await client.listTransactions({ payment_type: 'check', status: ['originated', 'returned'] });
    assert.equal(listed[0]!.transaction_status, 'returned');
    assert.equal(fake.sent[3]!.path, '/api/v2/transactions');
    assert.equal(new URL(fake.sent[3]!.url).search, '?payment_type=check&status=originated%2Creturned');
    fake.done();
  });

  it('a card transaction has no check_details; a declined check is a result in shape B', async () => {
    const { client, fake } = clientWith([
      { status: 200, body: chargeApproved(5, 1) },
      { status: 200, body: chargeDeclined(32, 42.5, 'declined', 'Account closed') },
    ]);
    assert.equal((await client.getTransaction(5)).check_details, null);
    const declined = await client.chargeCheck({ ...ACCOUNT, amount_cents: 4250 });
    assert.deepEqual([declined.transaction_status, declined.error?.message, declined.check_details], ['declined', 'Account closed', null]);
    fake.done();
  });

  it('refuses a malformed account before sending, never repeating the account number', async () => {
    const { client, fake } = clientWith([]);
    await refusedBeforeSending(client.chargeCheck({ ...ACCOUNT, routing_number: '11000015', amount: '1.00' }), /routing_number must be exactly 9 digits/);
    await refusedBeforeSending(client.chargeCheck({ ...ACCOUNT, account_number: '123', amount: '1.00' }), /account_number must be 4 to 17 digits/);
    await refusedBeforeSending(
      client.chargeCheck({ ...ACCOUNT, account_number: '0001234567890123456', amount: '1.00' }),
      /account_number must be 4 to 17 digits/,
    );
    await refusedBeforeSending(client.chargeCheck({ ...ACCOUNT, name: ' ', amount: '1.00' }), /name \(on the account\)/);
    await refusedBeforeSending(
      client.chargeCheck({ ...ACCOUNT, account_type: 'brokerage' as 'checking', amount: '1.00' }),
      /account_type must be checking or savings/,
    );
    await refusedBeforeSending(client.chargeCheck({ ...ACCOUNT, sec_code: 'ARC' as 'WEB', amount: '1.00' }), /sec_code must be one of PPD, CCD, TEL, WEB/);
    await assert.rejects(
      client.chargeCheck({ ...ACCOUNT, amount: '1.005' }),
      (error: unknown) => error instanceof PayrailError && error.code === 'invalid_amount',
    );
    assert.equal(fake.sent.length, 0);
    fake.done();
  });

  it('creditCheck posts an unmatched credit to the account and reads it as a refund', async () => {
    const refund = checkTransaction(40, 10, 'pending');
    (refund.transaction.transaction_details as Record<string, unknown>).type = 'refund';
    const { client, fake } = clientWith([{ status: 200, body: refund, expect: { method: 'POST', path: '/api/v2/transactions/credit' } }], {
      idempotency_key: () => 'credit-key',
    });
    const credit = await client.creditCheck({ ...ACCOUNT, account_type: 'savings', amount_cents: 1000 });
    assert.equal(
      fake.sent[0]!.body,
      '{"amount":10,"name":"Ada Lovelace","routing_number":"011000015","account_number":"000123456789","account_type":"savings"}',
    );
    assert.equal(fake.sent[0]!.headers['idempotency-key'], 'credit-key');
    assert.deepEqual([credit.type, credit.moved_cents, credit.check_details?.account_number_last4], ['refund', 1000, '6789']);
    fake.done();
  });

  it('saves, reads, lists, changes and deletes a check payment method; its number is never read back', async () => {
    const { client, fake } = clientWith([
      { status: 201, body: CHECK_METHOD, expect: { method: 'POST', path: '/api/v2/customers/7/payment-methods' } },
      { status: 200, body: CHECK_METHOD, expect: { method: 'GET', path: '/api/v2/payment-methods/12' } },
      { status: 200, body: [CHECK_METHOD, { ...CHECK_METHOD, id: 11, payment_method_type: 'card', card_type: 'Visa', expiry_month: 12, expiry_year: 2035 }] },
      { status: 200, body: { ...CHECK_METHOD, name: 'A. Lovelace', account_type: 'Savings' }, expect: { method: 'PATCH', path: '/api/v2/payment-methods/12' } },
      { status: 200, body: { success: true }, expect: { method: 'DELETE', path: '/api/v2/payment-methods/12' } },
      {
        status: 409,
        body: { error: { code: 'duplicate_payment_method', message: 'this account is already saved for customer 7 as payment method 12' }, id: 12 },
      },
    ]);
    const saved = await client.paymentMethods.saveCheck(7, { ...ACCOUNT, account_type: 'Checking', sec_code: 'PPD' });
    assert.equal(
      fake.sent[0]!.body,
      '{"name":"Ada Lovelace","routing_number":"011000015","account_number":"000123456789","account_type":"Checking","sec_code":"PPD"}',
    );
    assert.deepEqual(saved, { ...CHECK_METHOD, source: 'pm-12' });
    const got = await client.paymentMethods.get(12);
    assert.ok(isCheckPaymentMethod(got));
    assert.deepEqual([got.last4, got.account_number, got.routing_number, got.account_type, got.sec_code], ['6789', null, '011000015', 'Checking', 'PPD']);
    const listed = await client.paymentMethods.list(7);
    assert.deepEqual(
      listed.map((m) => [m.payment_method_type, m.source, isCheckPaymentMethod(m)]),
      [
        ['check', 'pm-12', true],
        ['card', 'pm-11', false],
      ],
    );
    const changed = await client.paymentMethods.updateCheck(12, { name: 'A. Lovelace', account_type: 'Savings' });
    assert.equal(fake.sent[3]!.body, '{"name":"A. Lovelace","account_type":"Savings"}');
    assert.deepEqual([changed.name, changed.account_type], ['A. Lovelace', 'Savings']);
    await client.paymentMethods.delete(12);
    await assert.rejects(client.paymentMethods.saveCheck(7, { ...ACCOUNT, account_type: 'Checking', sec_code: 'PPD' }), (error: unknown) => {
      assert.ok(error instanceof PayrailError);
      assert.deepEqual([error.code, error.status, error.details.id], ['duplicate_payment_method', 409, 12]);
      return true;
    });
    fake.done();
  });

  it('saves a check payment method without a SEC code, leaving the default (WEB) to the server', async () => {
    const { client, fake } = clientWith([
      { status: 201, body: { ...CHECK_METHOD, sec_code: 'WEB' }, expect: { method: 'POST', path: '/api/v2/customers/7/payment-methods' } },
    ]);
    const saved = await client.paymentMethods.saveCheck(7, { ...ACCOUNT, account_type: 'Checking' });
    assert.equal(fake.sent[0]!.body, '{"name":"Ada Lovelace","routing_number":"011000015","account_number":"000123456789","account_type":"Checking"}');
    assert.equal(saved.sec_code, 'WEB');
    fake.done();
  });

  it("refuses a check payment method without its type or with an unknown SEC code, and a change of the account's number, before sending", async () => {
    const { client, fake } = clientWith([]);
    await refusedBeforeSending(client.paymentMethods.saveCheck(7, { ...ACCOUNT, sec_code: 'PPD' } as never), /account_type is required/);
    await refusedBeforeSending(
      client.paymentMethods.saveCheck(7, { ...ACCOUNT, account_type: 'checking', sec_code: 'ARC' } as never),
      /sec_code must be one of/,
    );
    await refusedBeforeSending(client.paymentMethods.updateCheck(12, { account_number: ACCOUNT.account_number } as never), /number cannot change/);
    await refusedBeforeSending(client.paymentMethods.updateCheck(12, { routing_number: '1' }), /routing_number must be exactly 9 digits/);
    assert.equal(fake.sent.length, 0);
    fake.done();
  });

  it('sandbox.advanceAch posts business_days with the transfer API key and reads what moved', async () => {
    const { client, fake } = clientWith([
      {
        status: 200,
        body: {
          success: true,
          error: '',
          ach_time: '2026-01-08T21:00:00.000Z',
          business_days: 3,
          moved: { pending: 0, originated: 2, settled: 1, returned: 1, voided: 0, declined: 0, failed: 0 },
        },
        expect: { method: 'POST', path: '/sandbox/ach/advance' },
      },
    ]);
    const advanced = await client.sandbox.advanceAch({ businessDays: 3 });
    assert.equal(fake.sent[0]!.body, '{"business_days":3}');
    assert.equal(fake.sent[0]!.headers['api-key'], KEYS.transfer);
    assert.deepEqual(advanced, {
      ach_time: '2026-01-08T21:00:00.000Z',
      business_days: 3,
      moved: { pending: 0, originated: 2, settled: 1, returned: 1, voided: 0, declined: 0, failed: 0 },
    });
    for (const days of [0, 31, 1.5]) {
      await assert.rejects(
        client.sandbox.advanceAch({ businessDays: days }),
        (error: unknown) =>
          error instanceof PayrailError && error.code === 'invalid_request' && /businessDays must be an integer from 1 to 30/.test(error.message),
      );
    }
    assert.equal(fake.sent.length, 1);
    fake.done();
  });

  it('knows the check events', () => {
    for (const type of ['charge.originated', 'charge.settled', 'charge.returned']) assert.ok((EVENT_TYPES as readonly string[]).includes(type), type);
  });
});
