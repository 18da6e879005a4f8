// send(): the recommended sequence (balance, KYC, check, execute, poll) and
// each of its typed outcomes, including a new receiver and its invitation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PayrailError } from '../src/index.ts';
import { balance, check, executed, failure, kyc, status } from './fixtures.ts';
import { KE_TRANSFER, clientWith } from './helpers.ts';

const SEQUENCE = [
  { method: 'GET', path: '/api/agent_balance' },
  { method: 'GET', path: '/api/kyc/254712345678' },
  { method: 'POST', path: '/api/checkTransfer' },
  { method: 'POST', path: '/api/transfer' },
];

describe('send', () => {
  it('runs balance, KYC, check, execute and polls until success', async () => {
    const { client, fake, time } = clientWith([
      { status: 200, body: balance(100_000, 0), expect: SEQUENCE[0] },
      { status: 200, body: kyc(true, '3000.00', ''), expect: SEQUENCE[1] },
      { status: 200, body: check(), expect: SEQUENCE[2] },
      { status: 200, body: executed('1001'), expect: SEQUENCE[3] },
      { status: 200, body: status('1001', 40, 1, 0), expect: { method: 'GET', path: '/api/status/1001' } },
      { status: 200, body: status('1001', 60, 0, 1), expect: { method: 'GET', path: '/api/status/1001' } },
    ]);
    const result = await client.send({ ...KE_TRANSFER, receiver_phone: '0712345678' });
    assert.equal(result.outcome, 'succeeded');
    assert.ok(result.outcome === 'succeeded');
    assert.deepEqual([result.id, result.amount_cents, result.balance.available_cents, result.kyc.verified], ['1001', 1000, 100_000, true]);
    assert.deepEqual([result.check.fx_rate, result.transfer.state, result.transfer.final, result.transfer.trans], ['129.25', 60, true, 'T123']);
    assert.equal('resolved_by_status' in result.transfer, false);
    // The national number goes to check/execute as given; the KYC path got E.164 digits.
    assert.equal(JSON.parse(fake.sent[3]!.body!).receiver_phone, '0712345678');
    assert.deepEqual(time.sleeps, [1000, 1500]);
    fake.done();
  });

  it('makes a digits-only id when none is given, and uses it for check, execute and status', async () => {
    const { client, fake } = clientWith([
      { status: 200, body: balance(100_000, 0) },
      { status: 200, body: kyc(true, '3000.00', '') },
      { status: 200, body: check() },
      { status: 200, body: executed('x') },
      {
        status: 200,
        body: status('x', 80, 5, 1, [
          { name: 'provider-error-text', value: 'blocked' },
          { name: 'provider-error-code', value: 'E5' },
        ]),
      },
    ]);
    const { id: _omit, ...withoutId } = KE_TRANSFER;
    const result = await client.send(withoutId);
    assert.match(result.id, /^[0-9]{19}$/);
    assert.equal(JSON.parse(fake.sent[2]!.body!).id, result.id);
    assert.equal(JSON.parse(fake.sent[3]!.body!).id, result.id);
    assert.equal(fake.sent[4]!.path, `/api/status/${result.id}`);
    assert.equal(result.outcome, 'failed');
    assert.ok(result.outcome === 'failed');
    assert.deepEqual(result.transfer.provider_error, { text: 'blocked', code: 'E5' });
  });

  it('counts the overdraft and stops before KYC when funds are short', async () => {
    const { client, fake } = clientWith([{ status: 200, body: balance(500, 400) }]);
    try {
      await client.send(KE_TRANSFER);
      assert.fail('expected insufficient_funds');
    } catch (error) {
      assert.ok(error instanceof PayrailError);
      assert.deepEqual(
        [error.code, error.status, error.message],
        ['insufficient_funds', 0, 'available funds 9.00 (balance + overdraft) are below the amount 10.00'],
      );
    }
    fake.done();
  });

  it('returns kyc_required with the verification link, sending nothing, when the limit is below the amount', async () => {
    const { client, fake } = clientWith([
      { status: 200, body: balance(100_000, 0) },
      { status: 200, body: kyc(false, '5.00', 'https://sandbox.payrail.test/kyc/xyz') },
    ]);
    const result = await client.send(KE_TRANSFER);
    assert.equal(result.outcome, 'kyc_required');
    assert.deepEqual([result.kyc.money_limit_cents, result.kyc.kyc_url], [500, 'https://sandbox.payrail.test/kyc/xyz']);
    assert.equal('transfer' in result, false);
    fake.done();
  });

  it('treats money_limit "0" as unable to receive', async () => {
    const { client, fake } = clientWith([
      { status: 200, body: balance(100_000, 0) },
      { status: 200, body: kyc(false, '0', 'https://k') },
    ]);
    assert.equal((await client.send({ ...KE_TRANSFER, amount: '0.01' })).outcome, 'kyc_required');
    fake.done();
  });

  it('invites a receiver new to the network and returns invitation_sent without waiting 6 hours', async () => {
    const { client, fake, time } = clientWith([
      { status: 200, body: balance(100_000, 0) },
      { status: 404, body: failure('account_not_found', 'no account 254712340003') },
      { status: 200, body: check('unregistered') },
      { status: 200, body: executed('1001') },
      {
        status: 200,
        body: status('1001', 0, 9, 0, [
          { name: 'waitingFor', value: 'invitation' },
          { name: 'invitationUrl', value: 'https://sandbox.payrail.test/sandbox/invitations/254712345678' },
        ]),
      },
    ]);
    const result = await client.send(KE_TRANSFER);
    assert.equal(result.outcome, 'invitation_sent');
    assert.ok(result.outcome === 'invitation_sent');
    assert.deepEqual(
      [result.kyc.registered, result.check.receiver_status, result.transfer.waiting_for, result.transfer.invitation_url],
      [false, 'unregistered', 'invitation', 'https://sandbox.payrail.test/sandbox/invitations/254712345678'],
    );
    assert.deepEqual(time.sleeps, [1000]);
    fake.done();
  });

  it('returns at once when execute already reports the invitation wait', async () => {
    const { client, fake, time } = clientWith([
      { status: 200, body: balance(100_000, 0) },
      { status: 404, body: failure('account_not_found', 'no account') },
      { status: 200, body: check('unregistered') },
      { status: 200, body: executed('1001', '0', '9') },
      // Execute's answer carries no attributes: one status read names the reason.
      { status: 200, body: status('1001', 0, 9, 0, [{ name: 'waitingFor', value: 'invitation' }]), expect: { method: 'GET', path: '/api/status/1001' } },
    ]);
    const result = await client.send(KE_TRANSFER);
    assert.equal(result.outcome, 'invitation_sent');
    assert.deepEqual(time.sleeps, []);
    fake.done();
  });

  it('with invite: false, sends nothing to a receiver new to the network', async () => {
    const { client, fake } = clientWith([
      { status: 200, body: balance(100_000, 0) },
      { status: 404, body: failure('account_not_found', 'no account') },
    ]);
    assert.equal((await client.send(KE_TRANSFER, { invite: false })).outcome, 'receiver_not_registered');
    fake.done();
  });

  it('reports a transfer held for reconciliation', async () => {
    const { client, fake } = clientWith([
      { status: 200, body: balance(100_000, 0) },
      { status: 200, body: kyc(true, '3000.00', '') },
      { status: 200, body: check() },
      { status: 200, body: executed('1001') },
      { status: 200, body: status('1001', 0, 9, 0, [{ name: 'waitingFor', value: 'reconciliation' }]) },
    ]);
    assert.equal((await client.send(KE_TRANSFER)).outcome, 'waiting_for_reconciliation');
    fake.done();
  });

  it('returns pending when the transfer is not final within timeout_ms', async () => {
    const { client, fake, time } = clientWith([
      { status: 200, body: balance(100_000, 0) },
      { status: 200, body: kyc(true, '3000.00', '') },
      { status: 200, body: check() },
      { status: 200, body: executed('1001') },
      { status: 200, body: status('1001', 40, 1, 0) },
      { status: 200, body: status('1001', 40, 1, 0) },
    ]);
    const result = await client.send(KE_TRANSFER, { timeout_ms: 2000 });
    assert.equal(result.outcome, 'pending');
    assert.deepEqual(time.sleeps, [1000, 1000]);
    fake.done();
  });

  it('with wait: false, returns right after execute', async () => {
    const { client, fake } = clientWith([
      { status: 200, body: balance(100_000, 0) },
      { status: 200, body: kyc(true, '3000.00', '') },
      { status: 200, body: check() },
      { status: 200, body: executed('1001') },
    ]);
    const result = await client.send(KE_TRANSFER, { wait: false });
    assert.equal(result.outcome, 'pending');
    fake.done();
  });

  it('throws what check refuses, and executes nothing', async () => {
    const { client, fake } = clientWith([
      { status: 200, body: balance(100_000, 0) },
      { status: 200, body: kyc(true, '3000.00', '') },
      { status: 400, body: failure('invalid_request', 'service 1001 does not serve receiver_country NG') },
    ]);
    await assert.rejects(client.send({ ...KE_TRANSFER, receiver_country: 'NG' }), { code: 'invalid_request', status: 400 });
    fake.done();
  });

  it('refuses bad input before any request', async () => {
    const { client, fake } = clientWith([]);
    await assert.rejects(client.send({ ...KE_TRANSFER, amount: '1.001' }), { code: 'invalid_amount', status: 0 });
    assert.equal(fake.sent.length, 0);
  });
});
