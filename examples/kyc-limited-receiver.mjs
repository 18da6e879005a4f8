// @ts-check
// A receiver whose verification is incomplete can only receive up to their
// money_limit. send() checks KYC first and, when the amount is above the
// limit, sends nothing and returns the link where the receiver verifies.
//
//   node examples/kyc-limited-receiver.mjs
import { SENDER_PHONE, expect, payrailFromEnv } from './client.mjs';

const payrail = payrailFromEnv();
// In the sandbox, a number ending in 0002 is registered but limited to 100.00.
const receiver = '+254712340002';
const transfer = { sender_phone: SENDER_PHONE, receiver_phone: receiver, service: '1001', receiver_country: 'KE', receiver_currency: 'KES' };

const kyc = await payrail.kyc(receiver);
console.log(`receiver ${kyc.account}: verified ${kyc.verified}, limit ${kyc.money_limit} USD per transfer`);
expect(kyc.registered && !kyc.verified && kyc.money_limit_cents === 10_000, 'a receiver limited to 100.00');

// Above the limit: nothing is sent, and the receiver gets the verification link.
const tooMuch = await payrail.send({ ...transfer, amount: '150.00' });
expect(tooMuch.outcome === 'kyc_required', `outcome ${tooMuch.outcome}`);
console.log(`150.00 is above the limit: ask the receiver to verify at ${tooMuch.kyc.kyc_url}`);

// Within the limit: sent.
const within = await payrail.send({ ...transfer, amount: '80.00' });
expect(within.outcome === 'succeeded', `outcome ${within.outcome}`);
console.log(`80.00 sent: transfer ${within.id} ${within.outcome}`);

// The receiver completes verification (a sandbox call stands in for the page),
// and the larger transfer goes through.
await payrail.sandbox.completeKyc(receiver);
const verified = await payrail.kyc(receiver);
console.log(`after verification: verified ${verified.verified}, limit ${verified.money_limit} USD`);
const retried = await payrail.send({ ...transfer, amount: '150.00' });
expect(retried.outcome === 'succeeded', `outcome ${retried.outcome}`);
console.log(`150.00 sent: transfer ${retried.id} ${retried.outcome}`);
