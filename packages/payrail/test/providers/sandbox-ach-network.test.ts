// The sandbox ACH network (src/providers/sandbox/ach-network.ts): origination
// at the first business-day cut-off after submission on the merchant's ACH
// clock, settlement two business days later, and the return each test
// account number produces, with no state kept between calls.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Secret } from '../../src/domain/secret.ts';
import type { AchEntryQuery } from '../../src/providers/ach-network.ts';
import { SandboxAchNetwork } from '../../src/providers/sandbox/ach-network.ts';

const DAY_MS = 86_400_000;
const at = (iso: string): number => Date.parse(iso);

function network(startMs: number) {
  let nowMs = startMs;
  const offsets = new Map<string, number>();
  const sandbox = new SandboxAchNetwork({
    clock: { nowMs: () => nowMs },
    clocks: { offsetMs: async (merchantId) => offsets.get(merchantId) ?? 0 },
    cutoffMinuteOfDay: 21 * 60,
  });
  return {
    sandbox,
    setNow: (ms: number) => {
      nowMs = ms;
    },
    advance: (merchantId: string, ms: number) => offsets.set(merchantId, (offsets.get(merchantId) ?? 0) + ms),
  };
}

async function submit(sandbox: SandboxAchNetwork, reference: string, last4: string, merchantId = 'm_1'): Promise<AchEntryQuery> {
  const result = await sandbox.submit({
    reference,
    merchantId,
    direction: 'debit',
    amountCents: 1234,
    currency: 'USD',
    account: { name: 'A', routingNumber: '021000021', accountNumber: new Secret(`99999${last4}`), accountType: 'checking' },
    secCode: 'WEB',
    signal: AbortSignal.timeout(1000),
  });
  assert.equal(result.outcome, 'accepted');
  assert.match(result.networkRef, /^achs_/);
  return { reference, networkRef: result.networkRef, merchantId, direction: 'debit', accountLast4: last4, signal: AbortSignal.timeout(1000) };
}

describe('sandbox ACH network', () => {
  it('originates at the cut-off and settles two business days later', async () => {
    const { sandbox, setNow } = network(at('2026-11-25T12:00:00Z')); // Wednesday
    const query = await submit(sandbox, 'k1', '1234');
    assert.deepEqual(await sandbox.status(query), { state: 'pending' });
    setNow(at('2026-11-25T21:00:00Z'));
    assert.deepEqual(await sandbox.status(query), { state: 'originated', originatedAtMs: at('2026-11-25T21:00:00Z') });
    setNow(at('2026-11-27T20:59:59Z'));
    assert.equal((await sandbox.status(query)).state, 'originated');
    setNow(at('2026-11-27T21:00:00Z'));
    assert.deepEqual(await sandbox.status(query), { state: 'settled', originatedAtMs: at('2026-11-25T21:00:00Z'), settledAtMs: at('2026-11-27T21:00:00Z') });
  });

  it('voids before origination only, by the ACH clock', async () => {
    const { sandbox, setNow } = network(at('2026-11-25T12:00:00Z'));
    const query = await submit(sandbox, 'k2', '1234');
    assert.deepEqual(await sandbox.voidEntry(query), { outcome: 'voided' });
    assert.deepEqual(await sandbox.voidEntry(query), { outcome: 'voided' });
    setNow(at('2026-11-25T21:00:00Z'));
    assert.deepEqual(await sandbox.voidEntry(query), { outcome: 'too_late' });
  });

  for (const [last4, code, beforeSettling] of [
    ['0001', 'R01', false],
    ['0002', 'R02', true],
    ['0003', 'R03', true],
    ['0004', 'R04', true],
    ['0005', 'R10', false],
    ['0006', 'R29', false],
  ] as const) {
    it(`returns account ${last4} with ${code} ${beforeSettling ? 'before' : 'after'} settling`, async () => {
      const { sandbox, setNow } = network(at('2026-11-23T12:00:00Z')); // Monday, origination 21:00
      const query = await submit(sandbox, `r${last4}`, last4);
      setNow(at('2026-11-24T21:00:00Z')); // + 1 business day
      assert.equal((await sandbox.status(query)).state, beforeSettling ? 'returned' : 'originated');
      setNow(at('2026-11-25T21:00:00Z')); // + 2: settlement
      const atSettlement = await sandbox.status(query);
      assert.equal(atSettlement.state, beforeSettling ? 'returned' : 'settled');
      setNow(at('2026-11-26T21:00:00Z')); // + 3
      const last = await sandbox.status(query);
      assert.equal(last.state, 'returned');
      assert.equal(last.state === 'returned' ? last.returnCode : '', code);
    });
  }

  it('keeps one ACH clock per merchant', async () => {
    const { sandbox, advance } = network(at('2026-11-25T12:00:00Z'));
    const mine = await submit(sandbox, 'k3', '1234', 'm_1');
    const theirs = await submit(sandbox, 'k4', '1234', 'm_2');
    advance('m_1', 3 * DAY_MS);
    assert.equal((await sandbox.status(mine)).state, 'settled');
    assert.equal((await sandbox.status(theirs)).state, 'pending');
  });

  it('refuses a network reference of another entry', async () => {
    const { sandbox } = network(at('2026-11-25T12:00:00Z'));
    const query = await submit(sandbox, 'k5', '1234');
    await assert.rejects(sandbox.status({ ...query, reference: 'other' }), /not a sandbox ACH reference/);
  });
});
