// Stored customers, saved cards and recurring schedules in the SDK
// (docs/api-decisions.md section 15): against recorded answers (what is
// sent, what is read, what is refused before sending, that a creating POST
// is never retried, a duplicate card's existing id) and against a real
// sandbox server (save a card, charge it by pm-, schedule it, run it).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSandbox } from '../../../examples/local-sandbox.mjs';
import { Payrail, PayrailError } from '../src/index.ts';
import { chargeApproved, KEYS } from './fixtures.ts';
import { clientWith } from './helpers.ts';

const BASIC = `Basic ${Buffer.from(`${KEYS.source}:${KEYS.pin}`).toString('base64')}`;
const CUSTOMER = {
  id: 7,
  identifier: 'Ada',
  customer_number: 'C-7',
  email: null,
  first_name: 'Ada',
  last_name: null,
  phone: null,
  active: true,
  created_at: '2030-01-01T00:00:00.000Z',
};
const METHOD = {
  id: 11,
  customer_id: 7,
  payment_method_type: 'card',
  card_type: 'Visa',
  last4: '1111',
  expiry_month: 12,
  expiry_year: 2035,
  name: null,
  created_at: '2030-01-01T00:00:00.000Z',
};
const SCHEDULE = {
  id: 3,
  customer_id: 7,
  title: 'Box',
  receipt_email: null,
  amount: 12.5,
  frequency: 'monthly',
  next_run_date: '2030-02-01',
  num_left: 0,
  payment_method_id: 11,
  active: true,
  status: 'active',
  created_at: '2030-01-01T00:00:00.000Z',
};

describe('stored customers, cards and schedules (recorded answers)', () => {
  it('creates and finds customers: sends only what is given, reads the list filtered by customer_number', async () => {
    const { client, fake } = clientWith([
      { status: 200, body: CUSTOMER, expect: { method: 'POST', path: '/api/v2/customers' } },
      { status: 200, body: [CUSTOMER], expect: { method: 'GET', path: '/api/v2/customers' } },
      { status: 204, text: '', expect: { method: 'DELETE', path: '/api/v2/customers/7' } },
    ]);
    const created = await client.customers.create({ identifier: 'Ada', customer_number: 'C-7', first_name: 'Ada' });
    assert.deepEqual(created, CUSTOMER);
    assert.equal(fake.sent[0]!.body, '{"identifier":"Ada","customer_number":"C-7","first_name":"Ada"}');
    assert.equal(fake.sent[0]!.headers.authorization, BASIC);
    assert.deepEqual(await client.customers.list({ active: true, customer_number: 'C-7' }), [CUSTOMER]);
    assert.equal(new URL(fake.sent[1]!.url).search, '?active=true&customer_number=C-7');
    assert.equal(await client.customers.delete(7), undefined);
    fake.done();
  });

  it('a creating POST is sent once, even when its answer is lost', async () => {
    const { client, fake } = clientWith([{ network: 'fetch failed' }]);
    await assert.rejects(client.customers.create({ identifier: 'Ada' }), (error: unknown) => error instanceof PayrailError && error.code === 'network_error');
    assert.equal(fake.sent.length, 1);
    fake.done();
  });

  it('saves a card and reads its pm- source; the same card again throws duplicate_payment_method with the existing id', async () => {
    const { client, fake } = clientWith([
      { status: 200, body: METHOD, expect: { method: 'POST', path: '/api/v2/customers/7/payment-methods' } },
      {
        status: 409,
        body: { error: { code: 'duplicate_payment_method', message: 'this card is already saved for customer 7 as payment method 11' }, id: 11 },
      },
    ]);
    const method = await client.paymentMethods.save(7, { source: 'nonce-x', expiry_month: 12, expiry_year: 2035 });
    assert.equal(method.source, 'pm-11');
    assert.equal(fake.sent[0]!.body, '{"source":"nonce-x","expiry_month":12,"expiry_year":2035}');
    await assert.rejects(client.paymentMethods.save(7, { source: 'nonce-y', expiry_month: 12, expiry_year: 2035 }), (error: unknown) => {
      assert.ok(error instanceof PayrailError);
      assert.deepEqual([error.code, error.status, error.details.id], ['duplicate_payment_method', 409, 11]);
      return true;
    });
    fake.done();
  });

  it('charges a saved card with only source and amount', async () => {
    const { client, fake } = clientWith([{ status: 200, body: chargeApproved(101, 12.5), expect: { method: 'POST', path: '/api/v2/transactions/charge' } }], {
      idempotency_key: () => 'k1',
    });
    const charge = await client.charge({ source: 'pm-11', amount: '12.50' });
    assert.equal(charge.status, 'approved');
    assert.equal(fake.sent[0]!.body, '{"amount":12.5,"source":"pm-11"}');
    fake.done();
  });

  it('creates, pauses and runs a schedule: the amount sent as exact dollars, read back in cents', async () => {
    const { client, fake } = clientWith([
      { status: 200, body: SCHEDULE, expect: { method: 'POST', path: '/api/v2/customers/7/recurring-schedules' } },
      { status: 200, body: { ...SCHEDULE, active: false }, expect: { method: 'PATCH', path: '/api/v2/recurring-schedules/3' } },
      {
        status: 200,
        body: { success: true, error: '', charged: true, schedule: { ...SCHEDULE, next_run_date: '2030-03-01' }, transaction: chargeApproved(102, 12.5) },
        expect: { method: 'POST', path: '/sandbox/schedules/3/run' },
      },
    ]);
    const schedule = await client.schedules.create(7, {
      title: 'Box',
      amount: '12.50',
      frequency: 'monthly',
      next_run_date: '2030-02-01',
      payment_method_id: 11,
    });
    assert.equal(schedule.amount_cents, 1250);
    assert.equal(fake.sent[0]!.body, '{"title":"Box","frequency":"monthly","next_run_date":"2030-02-01","payment_method_id":11,"amount":12.5}');
    assert.equal((await client.schedules.pause(3)).active, false);
    assert.equal(fake.sent[1]!.body, '{"active":false}');
    const run = await client.sandbox.runSchedule(3);
    assert.deepEqual([run.charged, run.schedule.next_run_date, run.transaction.reference_number], [true, '2030-03-01', '102']);
    assert.equal(fake.sent[2]!.headers['api-key'], KEYS.transfer);
    fake.done();
  });

  it('refuses an id that is not one before sending anything', async () => {
    const { client, fake } = clientWith([]);
    await assert.rejects(client.customers.get('7; drop'), (error: unknown) => error instanceof PayrailError && error.code === 'invalid_request');
    await assert.rejects(client.schedules.get(0), (error: unknown) => error instanceof PayrailError && error.code === 'invalid_request');
    fake.done();
  });
});

interface Sandbox {
  url: string;
  merchant: { merchant_id: string; transfer_api_key: string; source: { api_key: string; pin: string; tokenization_token: string } };
  cli(args: string[]): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

describe('stored cards and schedules against a real server', () => {
  let sandbox: Sandbox;
  let payrail: Payrail;

  before(async () => {
    sandbox = (await startSandbox()) as Sandbox;
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

  it('saves a card, charges it by pm-, schedules it monthly and runs the schedule', async () => {
    const customer = await payrail.customers.create({ identifier: 'Ada', customer_number: `sdk-${Date.now()}` });
    assert.deepEqual(await payrail.customers.list({ customer_number: customer.customer_number! }), [customer]);
    const { nonce } = await payrail.tokenize({ card_number: '4111111111111111', expiry_month: 12, expiry_year: 2035, cvv2: '123' });
    const method = await payrail.paymentMethods.save(customer.id, { source: nonce, expiry_month: 12, expiry_year: 2035 });
    const charge = await payrail.charge({ source: method.source, amount: '5.00' });
    assert.equal(charge.status, 'approved');
    // Tomorrow: the server's own worker leaves it alone until then, so the sandbox run is the one that charges it.
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const schedule = await payrail.schedules.create(customer.id, {
      title: 'Monthly box',
      amount: '9.99',
      frequency: 'monthly',
      next_run_date: tomorrow,
      payment_method_id: method.id,
    });
    const run = await payrail.sandbox.runSchedule(schedule.id);
    assert.equal(run.charged, true);
    assert.equal(run.transaction.status, 'approved');
    assert.notEqual(run.schedule.next_run_date, tomorrow);
    const runs = await payrail.schedules.transactions(schedule.id);
    assert.deepEqual(
      runs.map((t) => t.reference_number),
      [run.transaction.reference_number],
    );
    assert.equal((await payrail.customers.transactions(customer.id)).length, 2);
    await payrail.paymentMethods.delete(method.id);
    assert.equal((await payrail.schedules.get(schedule.id)).active, false);
  });
});
