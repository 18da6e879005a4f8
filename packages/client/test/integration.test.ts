// The SDK against a real `payrail serve` (sandbox, immediate scenarios):
// every method, the sandbox receivers, and the retry guarantees with a
// response lost on the way back. Polling waits are shortened through the
// injectable sleep; the server's worker moves transfers on its own.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
// A plain JavaScript module shared with the examples, typed by its JSDoc.
import { startSandbox } from '../../../examples/local-sandbox.mjs';
import { Payrail, PayrailError, type ChargeApprovedWire, type FetchLike, type PayrailOptions, type TransferInput } from '../src/index.ts';

interface Sandbox {
  url: string;
  merchant: { merchant_id: string; transfer_api_key: string; source: { api_key: string; pin: string; tokenization_token: string } };
  cli(args: string[]): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** Polls a real server: a short real pause instead of the specification's 1 s growing intervals. */
const POLL_PAUSE_MS = 20;
const fastSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.min(ms, POLL_PAUSE_MS)));

const SENDER = '+14155552671';
const CARD = { card_number: '4111111111111111', expiry_month: 12, expiry_year: 2030, cvv2: '123' };
const BILLING = { first_name: 'Ada', last_name: 'Lovelace', street: '1 Main St', city: 'Springfield', state: 'IL', zip: '62701', country: 'US' };

function keTransfer(receiver: string, amount: string): Omit<TransferInput, 'id'> {
  return { sender_phone: SENDER, receiver_phone: receiver, amount, service: '1001', receiver_country: 'KE', receiver_currency: 'KES' } as Omit<
    TransferInput,
    'id'
  >;
}

async function rejection(promise: Promise<unknown>): Promise<PayrailError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof PayrailError, String(error));
    return error;
  }
  assert.fail('expected a PayrailError');
}

/** A loopback port nothing listens on (it was free a moment ago). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** A fetch that lets the request reach the server but loses the first answer to a matching request. */
function losingFirstAnswer(match: (url: string, method: string) => boolean): { fetch: FetchLike; lost: () => number } {
  let lost = 0;
  const fetchImpl: FetchLike = async (url, init) => {
    const response = await (globalThis.fetch as unknown as FetchLike)(url, init);
    if (lost === 0 && match(url, init.method)) {
      lost += 1;
      await response.text();
      throw new TypeError('socket hang up');
    }
    return response;
  };
  return { fetch: fetchImpl, lost: () => lost };
}

describe('SDK against a real server', () => {
  let sandbox: Sandbox;
  let payrail: Payrail;
  let options: PayrailOptions;

  before(async () => {
    sandbox = (await startSandbox({ fund: '5000.00' })) as Sandbox;
    options = {
      base_url: sandbox.url,
      api_key: sandbox.merchant.transfer_api_key,
      payin: { api_key: sandbox.merchant.source.api_key, pin: sandbox.merchant.source.pin, tokenization_token: sandbox.merchant.source.tokenization_token },
      sleep: fastSleep,
      retry_delay_ms: 1,
    };
    payrail = new Payrail(options);
  });

  after(async () => {
    // Whatever the tests did, every balance must equal its postings.
    const ledger = await sandbox.cli(['ledger', 'verify']);
    await sandbox.stop();
    assert.deepEqual(ledger.problems, []);
    assert.equal(ledger.ok, true);
  });

  it('balance: the funded amount in cents', async () => {
    assert.deepEqual(await payrail.balance(), { balance_cents: 500_000, overdraft_cents: 0, available_cents: 500_000 });
  });

  it('a wrong key is authentication_error (401), naming the request id the server gave it', async () => {
    const stranger = new Payrail({ ...options, api_key: 'sbx_tk_AAAAAAAAAAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB' });
    const error = await rejection(stranger.balance());
    assert.deepEqual([error.code, error.status], ['authentication_error', 401]);
    assert.match(error.requestId ?? '', /^req_[0-9a-f-]{36}$/);
  });

  it('a server that is not there: network_error naming the URL, ECONNREFUSED and the attempts', async () => {
    const port = await closedPort();
    const nowhere = new Payrail({ ...options, base_url: `http://127.0.0.1:${port}`, max_retries: 1 });
    const error = await rejection(nowhere.balance());
    assert.deepEqual([error.code, error.status, error.requestId], ['network_error', 0, null]);
    assert.equal(error.message, `GET http://127.0.0.1:${port}/api/agent_balance failed after 2 attempts: connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  it('kyc: verified, limited, unable and new receivers, in every phone form', async () => {
    const verified = await payrail.kyc('0712345678', { country: 'KE' });
    assert.deepEqual(verified, {
      account: '254712345678',
      registered: true,
      verified: true,
      money_limit_cents: 300_000,
      money_limit: '3000.00',
      kyc_url: null,
    });
    const limited = await payrail.kyc('+254 712 340 002');
    assert.deepEqual([limited.verified, limited.money_limit_cents], [false, 10_000]);
    assert.equal(limited.kyc_url, `${sandbox.url}/sandbox/kyc/254712340002`);
    const unable = await payrail.kyc('254712340001');
    assert.deepEqual([unable.registered, unable.money_limit_cents], [true, 0]);
    const unknown = await payrail.kyc('+254712340003');
    assert.deepEqual([unknown.registered, unknown.verified, unknown.money_limit_cents], [false, false, 0]);
  });

  it('check: the quote, in cents or decimal amounts alike', async () => {
    const byDecimal = await payrail.check({ ...keTransfer('+254712345678', '10.00'), id: Payrail.newTransferId() } as TransferInput);
    const byCents = await payrail.check({
      ...keTransfer('+254712345678', '1'),
      amount: undefined,
      amount_cents: 1000,
      id: Payrail.newTransferId(),
    } as TransferInput);
    assert.deepEqual(byDecimal, {
      fx_rate: '129.25',
      received_amount: '1292.50',
      receiver_status: 'registered',
      attributes: { fx_rate: '129.25', receivedAmount: '1292.50', receiverStatus: 'registered' },
    });
    assert.deepEqual(byCents, byDecimal);
  });

  it('check: refusals come back as PayrailError with the wire code', async () => {
    const wrongCorridor = await rejection(payrail.check({ ...keTransfer('+254712345678', '10.00'), receiver_currency: 'NGN', id: '1' } as TransferInput));
    assert.deepEqual([wrongCorridor.code, wrongCorridor.status], ['invalid_request', 400]);
    const overLimit = await rejection(payrail.check({ ...keTransfer('+254712340002', '150.00'), id: '2' } as TransferInput));
    assert.deepEqual([overLimit.code, overLimit.status], ['kyc_not_verified', 400]);
  });

  it('execute, status, waitForFinal: a transfer to success, and a reused id refused', async () => {
    const transfer = { ...keTransfer('+254712345678', '15.00'), id: Payrail.newTransferId() } as TransferInput;
    const executed = await payrail.execute(transfer);
    assert.deepEqual([executed.id, executed.state, executed.resolved_by_status], [transfer.id, 0, false]);
    const final = await payrail.waitForFinal(transfer.id, { timeout_ms: 30_000 });
    assert.deepEqual([final.state, final.final, final.outcome], [60, true, 'succeeded']);
    const { server_time: _now, ...settled } = await payrail.status(transfer.id);
    const { server_time: _then, ...awaited } = final;
    assert.deepEqual(settled, awaited);
    const again = await rejection(payrail.execute(transfer));
    assert.deepEqual([again.code, again.status], ['duplicate_transfer', 400]);
  });

  it('status: an unknown id is not_found, final', async () => {
    const unknown = await payrail.status('999999999999');
    assert.deepEqual([unknown.state, unknown.final, unknown.outcome], [-2, true, 'not_found']);
  });

  it('a failing receiver ends in state 80 with the provider error', async () => {
    const result = await payrail.send(keTransfer('+254712340004', '5.00'), { timeout_ms: 30_000 });
    assert.equal(result.outcome, 'failed');
    assert.ok(result.outcome === 'failed');
    assert.equal(result.transfer.state, 80);
    assert.ok(result.transfer.provider_error !== null && result.transfer.provider_error.text !== '' && result.transfer.provider_error.code !== '');
  });

  it('execute whose answer is lost: the retry resolves through status and the balance moves once', async () => {
    const lossy = losingFirstAnswer((url, method) => method === 'POST' && url.endsWith('/api/transfer'));
    const client = new Payrail({ ...options, fetch: lossy.fetch });
    const before = await payrail.balance();
    const transfer = { ...keTransfer('+254712345678', '7.00'), id: Payrail.newTransferId() } as TransferInput;
    const executed = await client.execute(transfer);
    assert.equal(lossy.lost(), 1);
    assert.deepEqual([executed.id, executed.resolved_by_status], [transfer.id, true]);
    await payrail.waitForFinal(transfer.id, { timeout_ms: 30_000 });
    const afterwards = await payrail.balance();
    assert.equal(before.balance_cents - afterwards.balance_cents, 700);
  });

  it('send: the whole sequence to success', async () => {
    const result = await payrail.send(keTransfer('0712345678', '20.00'), { timeout_ms: 30_000 });
    assert.equal(result.outcome, 'succeeded');
    assert.ok(result.outcome === 'succeeded');
    assert.deepEqual([result.amount_cents, result.check.received_amount, result.transfer.state], [2000, '2585.00', 60]);
  });

  it('send: above the KYC limit nothing is sent; after verification it goes through', async () => {
    const before = await payrail.balance();
    const limited = await payrail.send(keTransfer('+254712340002', '150.00'));
    assert.equal(limited.outcome, 'kyc_required');
    assert.equal(limited.kyc.kyc_url, `${sandbox.url}/sandbox/kyc/254712340002`);
    assert.deepEqual(await payrail.balance(), before);
    await payrail.sandbox.completeKyc('+254712340002');
    const sent = await payrail.send(keTransfer('+254712340002', '150.00'), { timeout_ms: 30_000 });
    assert.equal(sent.outcome, 'succeeded');
  });

  it('send: a new receiver gets an invitation; accepting it lets the transfer finish', async () => {
    const refused = await payrail.send(keTransfer('+254712340003', '12.50'), { invite: false });
    assert.equal(refused.outcome, 'receiver_not_registered');
    const invited = await payrail.send(keTransfer('+254712340003', '12.50'), { timeout_ms: 30_000 });
    assert.equal(invited.outcome, 'invitation_sent');
    assert.ok(invited.outcome === 'invitation_sent');
    assert.deepEqual([invited.check.receiver_status, invited.transfer.waiting_for], ['unregistered', 'invitation']);
    assert.equal(invited.transfer.invitation_url, `${sandbox.url}/sandbox/invitations/254712340003`);
    await payrail.sandbox.acceptInvitation('0712340003', { country: 'KE' });
    const final = await payrail.waitForFinal(invited.id, { timeout_ms: 30_000 });
    assert.equal(final.outcome, 'succeeded');
  });

  it('more than balance + overdraft: send refuses before sending, execute is refused by the server', async () => {
    const small = (await sandbox.cli(['merchant', 'create', '--name', 'Small merchant'])) as unknown as Sandbox['merchant'];
    await sandbox.cli(['merchant', 'fund', '--merchant', small.merchant_id, '--amount', '5.00']);
    await sandbox.cli(['merchant', 'overdraft', '--merchant', small.merchant_id, '--amount', '3.00']);
    const client = new Payrail({ ...options, api_key: small.transfer_api_key });
    assert.deepEqual(await client.balance(), { balance_cents: 500, overdraft_cents: 300, available_cents: 800 });
    const local = await rejection(client.send(keTransfer('+254712345678', '8.01')));
    assert.deepEqual([local.code, local.status], ['insufficient_funds', 0]);
    const remote = await rejection(client.execute({ ...keTransfer('+254712345678', '8.01'), id: Payrail.newTransferId() } as TransferInput));
    assert.deepEqual([remote.code, remote.status], ['insufficient_funds', 400]);
    // The overdraft counts: 8.00 goes through.
    assert.equal((await client.send(keTransfer('+254712345678', '8.00'), { timeout_ms: 30_000 })).outcome, 'succeeded');
    assert.deepEqual(await client.balance(), { balance_cents: -300, overdraft_cents: 300, available_cents: 0 });
  });

  it('tokenize and charge: approved, then read back with getCharge', async () => {
    const nonce = await payrail.tokenize(CARD);
    assert.match(nonce.nonce, /^nonce-/);
    assert.deepEqual([nonce.card_type, nonce.last_4], ['Visa', '1111']);
    const charge = await payrail.charge({ amount: '25.00', source: nonce.nonce, expiry_month: 12, expiry_year: 2030, billing_info: BILLING });
    assert.deepEqual(
      [charge.status, charge.amount_cents, charge.last_4, charge.avs_result_code, charge.cvv2_result_code, charge.error],
      ['approved', 2500, '1111', 'Y', 'M', null],
    );
    assert.match(charge.reference_number, /^[0-9]+$/);
    const read = await payrail.getCharge(charge.reference_number);
    assert.deepEqual(read.raw, charge.raw);
  });

  it('charge: a decline is a result (shape B); a used nonce and a bad card are errors', async () => {
    const declinedNonce = await payrail.tokenize({ ...CARD, card_number: '4000000000000002' });
    const declined = await payrail.charge({ amount_cents: 1000, source: declinedNonce.nonce, expiry_month: 12, expiry_year: 2030, billing_info: BILLING });
    assert.deepEqual([declined.status, declined.error?.code, declined.amount_cents, declined.last_4], ['declined', 'card_declined', 1000, '0002']);
    assert.deepEqual((await payrail.getCharge(declined.reference_number)).status, 'declined');
    const reused = await rejection(payrail.charge({ amount: '1.00', source: declinedNonce.nonce, expiry_month: 12, expiry_year: 2030, billing_info: BILLING }));
    assert.deepEqual([reused.code, reused.status], ['invalid_nonce', 400]);
    const badCard = await rejection(payrail.tokenize({ ...CARD, card_number: '4111111111111112' }));
    assert.deepEqual([badCard.code, badCard.status], ['invalid_card', 400]);
    const missing = await rejection(payrail.getCharge('99999999999'));
    assert.deepEqual([missing.code, missing.status], ['not_found', 404]);
  });

  it('charge whose answer is lost: the retry with the same Idempotency-Key charges once', async () => {
    const lossy = losingFirstAnswer((url, method) => method === 'POST' && url.endsWith('/api/v2/transactions/charge'));
    const client = new Payrail({ ...options, fetch: lossy.fetch });
    const nonce = await payrail.tokenize(CARD);
    const before = await payrail.balance();
    const charge = await client.charge({ amount: '40.00', source: nonce.nonce, expiry_month: 12, expiry_year: 2030, billing_info: BILLING });
    assert.equal(lossy.lost(), 1);
    assert.equal(charge.status, 'approved');
    const afterwards = await payrail.balance();
    assert.equal(afterwards.balance_cents - before.balance_cents, 4000);
  });

  it('charge then a transfer linked to it by gateway_id', async () => {
    const nonce = await payrail.tokenize(CARD);
    const charge = await payrail.charge({ amount: '30.00', source: nonce.nonce, expiry_month: 12, expiry_year: 2030, billing_info: BILLING });
    const linked = await payrail.send({ ...keTransfer('+254712345678', '30.00'), gateway_id: charge.reference_number }, { timeout_ms: 30_000 });
    assert.equal(linked.outcome, 'succeeded');
    assert.ok(linked.outcome === 'succeeded');
    assert.equal(linked.transfer.gateway_id, charge.reference_number);
    // The charge lists the transfer it funds.
    assert.deepEqual((await payrail.getCharge(charge.reference_number)).raw, {
      ...charge.raw,
      transaction: { ...(charge.raw as ChargeApprovedWire).transaction, custom_fields: { transfers: [{ id: linked.id, amount: '30.00' }] } },
    });
    // The charge's amount is used up: another transfer naming it is refused, saying why, naming the transfer and the request.
    const again = await rejection(payrail.send({ ...keTransfer('+254712345678', '1.00'), gateway_id: charge.reference_number }));
    assert.deepEqual([again.code, again.status], ['invalid_request', 400]);
    assert.equal(again.message, `attribute gatewayId ${charge.reference_number} has 0.00 not yet linked to transfers, less than the amount 1.00`);
    assert.match(again.transferId ?? '', /^[0-9]+$/);
    assert.match(again.requestId ?? '', /^req_/);
  });

  it('transfers.list: every transfer of the merchant, newest first, page by page', async () => {
    const mine = (await sandbox.cli(['merchant', 'create', '--name', 'Lister'])) as unknown as Sandbox['merchant'];
    await sandbox.cli(['merchant', 'fund', '--merchant', mine.merchant_id, '--amount', '100.00']);
    const lister = new Payrail({ ...options, api_key: mine.transfer_api_key });
    const sent: string[] = [];
    for (const amount of ['1.00', '2.00', '3.00', '4.00', '5.00']) {
      const transfer = { ...keTransfer('+254712345678', amount), id: Payrail.newTransferId() } as TransferInput;
      await lister.execute(transfer);
      sent.push(transfer.id);
    }
    const pages: string[][] = [];
    for await (const page of lister.transfers.list({ limit: 2 })) pages.push(page.transfers.map((t) => t.id));
    assert.deepEqual(pages.flat(), [...sent].reverse());
    assert.deepEqual(
      pages.map((page) => page.length),
      [2, 2, 1],
    );
    const newest = (await lister.transfers.list({ limit: 1 }).next()).value;
    assert.ok(newest);
    assert.deepEqual([newest.transfers[0]!.amount_cents, newest.transfers[0]!.receiver_phone, newest.transfers[0]!.service], [500, '+254712345678', '1001']);
  });
});
