// @ts-check
// The card lifecycle a shop plugin drives (docs/api-decisions.md section 10):
// authorize at checkout, capture what ships, let the batch settle, then
// refund part of it when an item comes back. In the sandbox the batch is
// closed at once with sandbox.closeBatch(); in production it closes daily.
//
//   node examples/authorize-capture-refund.mjs
import { formatCents } from '@payrail/client';
import { expect, payrailFromEnv } from './client.mjs';

const payrail = payrailFromEnv();
const billing_info = { first_name: 'Ada', last_name: 'Lovelace', street: '1 Main St', city: 'Springfield', state: 'IL', zip: '62701', country: 'US' };

// 1. Authorize 60.00 at checkout: the card is held, nothing is credited yet.
const { nonce } = await payrail.tokenize({ card_number: '4111111111111111', expiry_month: 12, expiry_year: 2030, cvv2: '123' });
const authorization = await payrail.authorize({ amount: '60.00', source: nonce, expiry_month: 12, expiry_year: 2030, billing_info });
console.log(`authorization ${authorization.reference_number}: ${authorization.transaction_status} ${formatCents(authorization.amount_cents)} USD`);
expect(authorization.transaction_status === 'approved', `authorization status ${authorization.transaction_status}`);

// 2. Only 45.00 of the order ships: capture that much (the rest of the hold is released).
const captured = await payrail.capture(authorization.reference_number, { amount: '45.00' });
console.log(`captured ${formatCents(captured.moved_cents)} USD, batch ${captured.batch_id}`);
expect(captured.transaction_status === 'captured', `capture status ${captured.transaction_status}`);

// 3. The daily close settles the batch; the sandbox can close it now.
const [batch] = await payrail.sandbox.closeBatch();
expect(batch !== undefined, 'a batch was closed');
console.log(`batch ${batch.id} closed: ${batch.transaction_count} transaction(s), net ${formatCents(batch.net_amount_cents)} USD`);
const settled = await payrail.getTransaction(captured.reference_number);
expect(settled.transaction_status === 'settled', `after the close: ${settled.transaction_status}`);

// 4. An item comes back: refund 15.00. The refund is a transaction of its own.
const refund = await payrail.refund(captured.reference_number, { amount: '15.00' });
console.log(`refund ${refund.reference_number} of ${refund.refunded_reference}: ${refund.transaction_status} ${formatCents(refund.moved_cents)} USD`);
expect(refund.type === 'refund' && refund.transaction_status === 'captured', `refund ${refund.type} ${refund.transaction_status}`);

// 5. More than what is left to refund is refused, naming what is refundable.
try {
  await payrail.refund(captured.reference_number, { amount: '30.01' });
  expect(false, 'a refund beyond the refundable amount went through');
} catch (error) {
  console.log(`refused as expected: ${/** @type {Error} */ (error).message}`);
}

const refunds = await payrail.listTransactions({ type: 'refund', limit: 10 });
expect(
  refunds.some((t) => t.reference_number === refund.reference_number),
  'the refund is listed',
);
