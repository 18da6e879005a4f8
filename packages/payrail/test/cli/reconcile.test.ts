// `payrail reconcile` and `payrail ledger verify` with open differences,
// spawned as real processes against one store (the flow's behaviour is
// covered on both stores by test/operations/processor-reconciliation.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/domain/clock.ts';
import { reconcileProcessorDay } from '../../src/flows/operations/processor-reconciliation.ts';
import { providerKeysOf } from '../../src/domain/provider-keys.ts';
import { createLogger } from '../../src/log.ts';
import { runCli, runCliJson } from '../helpers/cli.ts';
import { createStore, type TestStore } from '../helpers/stores.ts';

describe('payrail reconcile (sqlite)', () => {
  let store: TestStore;
  before(async () => {
    store = await createStore('sqlite');
    // One processor transaction Payrail never made: one unknown transaction and its batch's total.
    const settlements = {
      settledBatches: async () => [
        {
          batchId: 'B7',
          settledAtMs: Date.UTC(2026, 2, 10, 23),
          transactions: [{ processorRef: 'x-1', reference: null, kind: 'charge' as const, amountCents: 1234, status: 'settledSuccessfully' }],
        },
      ],
    };
    const deps = {
      db: store.db,
      clock: new ManualClock(Date.UTC(2026, 2, 11, 3)),
      log: createLogger('silent'),
      processor: { name: 'fake', settlements },
      providerKeys: providerKeysOf('0123456789abcdef0123456789abcdef'),
    };
    assert.equal((await reconcileProcessorDay(deps, { day: '2026-03-10', force: false })).status, 'done');
  });
  after(() => store.dispose());

  it('says the sandbox processor has nothing to reconcile, lists and resolves differences, and ledger verify reports them without failing', async () => {
    const sandbox = await runCli(['reconcile', 'processor', '--date', '2026-03-10'], store.env);
    assert.equal(sandbox.code, 0, sandbox.stderr);
    assert.equal(sandbox.stdout, 'card processor sandbox lists no settlements: nothing to reconcile with\n');

    const verify = await runCli(['ledger', 'verify'], store.env);
    assert.equal(verify.code, 0, verify.stderr);
    assert.match(verify.stdout, /^ledger OK.*\nnote: 2 open difference\(s\) with the card processor's settlements \(not a ledger imbalance\)/);

    const { differences } = await runCliJson<{ differences: Array<{ id: number; kind: string; processor_cents: number }> }>(
      ['reconcile', 'differences', '--open'],
      store.env,
    );
    assert.deepEqual(differences.map((d) => [d.kind, d.processor_cents]).sort(), [
      ['batch_total_mismatch', 1234],
      ['unknown_to_payrail', 1234],
    ]);
    const unknown = differences.find((d) => d.kind === 'unknown_to_payrail')!;
    const resolved = await runCli(
      ['reconcile', 'resolve', '--id', String(unknown.id), '--note', 'processor test charge, refunded at the processor'],
      store.env,
    );
    assert.equal(resolved.code, 0, resolved.stderr);
    assert.match(resolved.stdout, new RegExp(`^#${unknown.id} .*\\[resolved by cli:[^:]*: processor test charge, refunded at the processor\\]`));
    const again = await runCli(['reconcile', 'resolve', '--id', String(unknown.id), '--note', 'again'], store.env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already resolved/);
  });
});
