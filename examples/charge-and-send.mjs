// @ts-check
// Card payin, then a payout paid by it: tokenize a sandbox test card, charge
// it, send a transfer linked to the charge with gatewayId, and wait for the
// transfer's final state.
//
//   node examples/charge-and-send.mjs
import { Payrail, formatCents } from '@payrail/client';
import { SENDER_PHONE, expect, payrailFromEnv } from './client.mjs';

const payrail = payrailFromEnv();

// 1. Tokenize. In production the customer's browser does this (hosted card
//    form); tokenize() exists for sandbox tests and refuses production tokens.
const { nonce, card_type, last_4 } = await payrail.tokenize({ card_number: '4111111111111111', expiry_month: 12, expiry_year: 2030, cvv2: '123' });
console.log(`tokenized ${card_type} ending ${last_4}`);

// 2. Charge 25.00. The SDK sends an Idempotency-Key, so its retries never charge twice.
const charge = await payrail.charge({
  amount: '25.00',
  source: nonce,
  expiry_month: 12,
  expiry_year: 2030,
  billing_info: { first_name: 'Ada', last_name: 'Lovelace', street: '1 Main St', city: 'Springfield', state: 'IL', zip: '62701', country: 'US' },
  transaction_details: { order_number: 'ORDER-1001' },
});
console.log(
  `charge ${charge.reference_number}: ${charge.status} ${formatCents(charge.amount_cents)} USD (AVS ${charge.avs_result_code}, CVV ${charge.cvv2_result_code})`,
);
expect(charge.status === 'approved', `charge status ${charge.status}`);

// 3. Send 20.00 of it to a Kenyan mobile number, linked to the charge.
const sent = await payrail.send({
  id: Payrail.newTransferId(),
  sender_phone: SENDER_PHONE,
  receiver_phone: '+254712345678',
  amount: '20.00',
  service: '1001',
  receiver_country: 'KE',
  receiver_currency: 'KES',
  gateway_id: charge.reference_number,
});
expect(sent.outcome !== 'kyc_required' && sent.outcome !== 'receiver_not_registered', `send outcome ${sent.outcome}`);
console.log(`transfer ${sent.id}: rate ${sent.check.fx_rate}, receiver gets ${sent.check.received_amount} KES`);

// 4. send() already polled to a final state; waitForFinal does the same for any id.
const final = await payrail.waitForFinal(sent.id, { timeout_ms: 60_000 });
console.log(`transfer ${final.id}: state ${final.state} (${final.outcome})`);
expect(final.outcome === 'succeeded', `final outcome ${final.outcome}`);

// The charge can be read back at any time.
const again = await payrail.getCharge(charge.reference_number);
expect(again.status === 'approved', `charge read back as ${again.status}`);
