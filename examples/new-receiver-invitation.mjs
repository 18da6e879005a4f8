// @ts-check
// A receiver new to the network: KYC knows no account for them, check reports
// them unregistered, and execute sends them a payment invitation. The money
// waits until they accept (or comes back after 6 hours).
//
//   node examples/new-receiver-invitation.mjs
import { SENDER_PHONE, expect, payrailFromEnv } from './client.mjs';

const payrail = payrailFromEnv();
// In the sandbox, a number ending in 0003 is not on the network. A national
// number works too: the SDK gives KYC the E.164 digits it needs.
const receiver = '0712340003';

const kyc = await payrail.kyc(receiver, { country: 'KE' });
console.log(`receiver ${kyc.account}: registered ${kyc.registered}`);
expect(!kyc.registered, 'an unregistered receiver');

const sent = await payrail.send({
  sender_phone: SENDER_PHONE,
  receiver_phone: receiver,
  amount: '12.50',
  service: '1001',
  receiver_country: 'KE',
  receiver_currency: 'KES',
});
expect(sent.outcome === 'invitation_sent', `outcome ${sent.outcome}`);
console.log(`transfer ${sent.id} waits for the receiver: invitation at ${sent.transfer.invitation_url}`);

// The receiver accepts (a sandbox call stands in for the invitation page);
// the waiting transfer proceeds to its final state.
await payrail.sandbox.acceptInvitation(receiver, { country: 'KE' });
const final = await payrail.waitForFinal(sent.id, { timeout_ms: 60_000 });
console.log(`transfer ${final.id}: state ${final.state} (${final.outcome})`);
expect(final.outcome === 'succeeded', `final outcome ${final.outcome}`);

const now = await payrail.kyc(receiver, { country: 'KE' });
console.log(`receiver now registered ${now.registered}, verified ${now.verified}, limit ${now.money_limit} USD`);
