// @ts-check
// Saving a card and billing it on a schedule (docs/api-decisions.md section
// 15), as a subscription shop does: find or create the customer by your own
// customer number, save the card from a nonce (the same card twice is
// refused with the saved one's id), charge the first period with only
// `{source: "pm-<id>", amount}`, create a monthly schedule for the next ones,
// and (sandbox only) run its next date now instead of waiting for it.
//
//   node examples/saved-card-schedule.mjs
import { formatCents, isPayrailError } from '@payrail/client';
import { expect, payrailFromEnv } from './client.mjs';

const payrail = payrailFromEnv();
const customerNumber = `example-${Date.now()}`;

// 1. Find the customer by your own number, or create it.
const [found] = await payrail.customers.list({ customer_number: customerNumber, active: true });
const customer = found ?? (await payrail.customers.create({ identifier: 'Ada Lovelace', customer_number: customerNumber, email: 'ada@example.com' }));
console.log(`customer ${customer.id} (${customer.customer_number})`);

// 2. Save the card from a nonce (in production the hosted card form makes the nonce in the browser).
const card = { card_number: '4111111111111111', expiry_month: 12, expiry_year: 2035, cvv2: '123' };
const method = await payrail.paymentMethods.save(customer.id, { source: (await payrail.tokenize(card)).nonce, expiry_month: 12, expiry_year: 2035 });
console.log(`saved ${method.card_type} ending ${method.last4} as ${method.source}`);

// The same card again is refused, naming the method that has it.
try {
  await payrail.paymentMethods.save(customer.id, { source: (await payrail.tokenize(card)).nonce, expiry_month: 12, expiry_year: 2035 });
  expect(false, 'the same card was saved twice');
} catch (error) {
  expect(isPayrailError(error) && error.code === 'duplicate_payment_method' && error.details.id === method.id, `unexpected: ${error}`);
  console.log(`saving it again: ${/** @type {Error} */ (error).message}`);
}

// 3. Charge the first period with the saved card: no expiry, no billing address needed.
const first = await payrail.charge({ source: method.source, amount: '19.99' });
expect(first.status === 'approved', `first charge ${first.status}`);
console.log(`charged ${formatCents(first.amount_cents)} USD, reference ${first.reference_number}`);

// 4. Bill the next periods monthly, from tomorrow (UTC).
const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
const schedule = await payrail.schedules.create(customer.id, {
  title: 'Monthly coffee box',
  amount: '19.99',
  frequency: 'monthly',
  next_run_date: tomorrow,
  payment_method_id: method.id,
});
console.log(`schedule ${schedule.id}: ${schedule.frequency}, next run ${schedule.next_run_date}`);

// 5. Sandbox: run tomorrow's date now (the worker would on the day); a date is charged once.
const run = await payrail.sandbox.runSchedule(schedule.id);
expect(run.charged && run.transaction.status === 'approved', `schedule run ${run.transaction.status}`);
console.log(`schedule charged ${formatCents(run.transaction.amount_cents)} USD; next run ${run.schedule.next_run_date}`);
const runs = await payrail.schedules.transactions(schedule.id);
expect(runs.length === 1 && runs[0]?.reference_number === run.transaction.reference_number, 'the run is listed on the schedule');

// 6. Pause it (resume() starts it again).
const paused = await payrail.schedules.pause(schedule.id);
expect(!paused.active, 'the schedule is paused');
console.log(`schedule ${schedule.id} paused`);
