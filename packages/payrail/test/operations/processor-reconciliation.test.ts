// Reconciliation with the card processor (issue 36 item 4), on both stores:
// a fake ProcessorSettlements lists batches built from the sandbox's own
// processor refs; the day's run finds each kind of difference, a re-run
// neither duplicates nor keeps what no longer differs, one run at a time
// holds a day, a failed run is recorded, an operator resolves a difference
// (audited, CLI-style actor and panel), and ledger verify reports the open
// ones without calling the ledger wrong.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/domain/clock.ts';
import { providerKeysOf } from '../../src/domain/provider-keys.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { auditEvents } from '../../src/flows/operations/audit.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import {
  listDifferences,
  RUN_LEASE_MS,
  type ReconcileDeps,
  reconcileProcessorDay,
  resolveProcessorDifference,
} from '../../src/flows/operations/processor-reconciliation.ts';
import { createUser } from '../../src/flows/panel/users.ts';
import type { ProcessorSettlements, SettledBatch, SettledTransaction } from '../../src/providers/card-settlements.ts';
import { isApiError } from '../../src/errors.ts';
import type { Service } from '../../src/service.ts';
import { reconciliationDayStatus } from '../../src/store/operations/processor-reconciliation.ts';
import { processorReconciliationJob, RECONCILIATION_CHECK_INTERVAL_MS } from '../../src/worker/maintenance-jobs.ts';
import { Worker } from '../../src/worker/worker.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { chargeCard, closeSandboxBatch, operateOk } from '../helpers/lifecycle.ts';
import { PanelClient, textOf } from '../helpers/panel.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const DAY = '2026-03-10';
const DAY_START_MS = Date.UTC(2026, 2, 10);
const PREVIOUS_DAY_MS = Date.UTC(2026, 2, 9, 23);
const KEYS = providerKeysOf('0123456789abcdef0123456789abcdef');
const OPERATOR = { kind: 'cli' as const, id: 'ops', label: null, address: null };

/** A processor whose settled batches the test sets; `gate` holds a call until released. */
class FakeSettlements implements ProcessorSettlements {
  batches: SettledBatch[] = [];
  calls = 0;
  failWith: Error | null = null;
  gate: Promise<void> | null = null;
  async settledBatches(request: { fromMs: number; toMs: number; signal: AbortSignal }): Promise<readonly SettledBatch[]> {
    this.calls += 1;
    const { signal } = request;
    const aborted = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
    aborted.catch(() => {});
    if (this.gate !== null) await Promise.race([this.gate, aborted]);
    if (this.failWith !== null) throw this.failWith;
    return this.batches.filter((b) => b.settledAtMs >= request.fromMs && b.settledAtMs < request.toMs);
  }
}

const txn = (processorRef: string, kind: 'charge' | 'refund', amountCents: number, reference: string | null = null): SettledTransaction => ({
  processorRef,
  reference,
  kind,
  amountCents,
  status: kind === 'charge' ? 'settledSuccessfully' : 'refundSettledSuccessfully',
});

for (const kind of STORE_KINDS) {
  describe(`processor reconciliation (${kind})`, () => {
    let t: TestApp;
    let shop: CreatedMerchant;
    let fake: FakeSettlements;
    let deps: ReconcileDeps;
    const pk: Record<string, number> = {};
    const ref: Record<string, string> = {};

    /** Sets what the processor settled for `processorRef` in batch P1. */
    function setAmount(processorRef: string, cents: number): void {
      const p1 = fake.batches[1]!;
      fake.batches[1] = { ...p1, transactions: p1.transactions.map((x) => (x.processorRef === processorRef ? txn(processorRef, 'charge', cents) : x)) };
    }

    const tick = () => new Promise((resolve) => setImmediate(resolve));
    /** Waits (boundedly) until `done` holds. */
    async function until(done: () => boolean | Promise<boolean>): Promise<void> {
      for (let i = 0; i < 100_000; i++)
        if (await done()) return;
        else await tick();
      assert.fail('waited too long');
    }

    async function refOf(chargePk: number): Promise<string> {
      const row = await t.service.db.read((tx) => tx.get<{ processor_ref: string }>('SELECT processor_ref FROM charges WHERE pk = ?', [chargePk]));
      assert.ok(row?.processor_ref);
      return row.processor_ref;
    }

    before(async () => {
      t = await createTestApp(kind, { clock: new ManualClock(Date.UTC(2026, 2, 10, 9)) });
      shop = await t.newMerchant({ name: 'Reconciled shop' });
      for (const [name, dollars] of [
        ['a', 10],
        ['b', 20],
        ['c', 30],
        ['d', 40],
        ['f', 50],
        ['g', 60],
      ] as const)
        pk[name] = await chargeCard(t, shop, { amount: dollars });
      pk.e = await chargeCard(t, shop, { amount: 15, capture: false });
      await closeSandboxBatch(t, shop);
      pk.r = (await operateOk(t, shop, 'refund', { reference_number: pk.a, amount: 5 })).reference_number as number;
      await closeSandboxBatch(t, shop);
      for (const name of Object.keys(pk)) ref[name] = await refOf(pk[name]!);
      fake = new FakeSettlements();
      // f: the processor settled it the evening before (after Payrail's close), so it is not missing.
      // g: the processor lost its id but kept Payrail's provider key.
      fake.batches = [
        { batchId: 'P0', settledAtMs: PREVIOUS_DAY_MS, transactions: [txn(ref.f!, 'charge', 5000)] },
        {
          batchId: 'P1',
          settledAtMs: DAY_START_MS + 23 * 3_600_000,
          transactions: [
            txn(ref.a!, 'charge', 1000),
            txn(ref.r!, 'refund', 500),
            txn(ref.b!, 'charge', 2500),
            txn(ref.c!, 'refund', 3000),
            txn(ref.e!, 'charge', 1500),
            txn('anet-unknown-1', 'charge', 700),
            txn('anet-renamed-g', 'charge', 6000, KEYS.key('charge', pk.g!)),
          ],
        },
      ];
      deps = { db: t.service.db, clock: t.clock, log: t.service.log, processor: { name: 'fake', settlements: fake }, providerKeys: KEYS };
      t.clock.set(Date.UTC(2026, 2, 11, 3));
    });
    after(() => t.close());

    it('finds each kind of difference, and nothing for what matches', async () => {
      const outcome = await reconcileProcessorDay(deps, { day: DAY, force: false });
      assert.equal(outcome.status, 'done');
      const rows = await listDifferences(t.service, { filters: { open: true, day: DAY }, limit: 100, offset: 0 });
      const found = rows.map((d) => `${d.kind} ${d.subject}`).sort();
      assert.deepEqual(found, [
        `amount_mismatch ref:${ref.b}`,
        'batch_total_mismatch batch:P1',
        `kind_mismatch ref:${ref.c}`,
        `missing_at_processor charge:${pk.d}`,
        `state_mismatch ref:${ref.e}`,
        'unknown_to_payrail ref:anet-unknown-1',
      ]);
      const amount = rows.find((d) => d.kind === 'amount_mismatch')!;
      assert.deepEqual([amount.payrail_cents, amount.processor_cents, amount.charge_pk, amount.merchant_id], [2000, 2500, pk.b, shop.merchant_id]);
      const total = rows.find((d) => d.kind === 'batch_total_mismatch')!;
      // Processor: 10 - 5 + 25 - 30 + 15 + 7 + 60; Payrail's record of the same: 10 - 5 + 20 + 30 + 0 (authorized) + 60.
      assert.deepEqual([total.processor_cents, total.payrail_cents], [8200, 11500]);
      const found_events = (await auditEvents(t.service, { action: 'reconciliation.difference_found', fromMs: null, toMs: null, beforeId: null }, 50)).rows;
      assert.equal(found_events.length, 6);
    });

    it('a re-run of the day updates its rows instead of adding, and clears what no longer differs', async () => {
      assert.deepEqual(
        await reconcileProcessorDay(deps, { day: DAY, force: false }),
        { status: 'skipped', day: DAY, reason: 'done' },
        'the daily job runs a day once',
      );
      const again = await reconcileProcessorDay(deps, { day: DAY, force: true });
      assert.equal(again.status === 'done' && `${again.added} ${again.cleared} ${again.open}`, '0 0 6');
      setAmount(ref.b!, 2000);
      const fixed = await reconcileProcessorDay(deps, { day: DAY, force: true });
      assert.equal(fixed.status === 'done' && `${fixed.added} ${fixed.cleared} ${fixed.open}`, '0 1 5');
      const all = await listDifferences(t.service, { filters: { open: null, day: DAY }, limit: 100, offset: 0 });
      assert.equal(all.length, 6);
      assert.equal(all.find((d) => d.kind === 'amount_mismatch')?.resolved_by, 'reconciliation');
    });

    it('one run holds a day at a time; a failed run is recorded and retried later', async () => {
      let release = () => {};
      fake.gate = new Promise((resolve) => (release = resolve));
      const first = reconcileProcessorDay(deps, { day: '2026-03-08', force: false });
      while (fake.calls === 0) await new Promise((resolve) => setImmediate(resolve));
      const second = await reconcileProcessorDay(deps, { day: '2026-03-08', force: true });
      assert.deepEqual(second, { status: 'skipped', day: '2026-03-08', reason: 'running' });
      release();
      assert.equal((await first).status, 'done');
      fake.gate = null;

      fake.failWith = new Error('processor did not answer');
      const failed = await reconcileProcessorDay(deps, { day: '2026-03-07', force: false });
      assert.deepEqual(failed, { status: 'failed', day: '2026-03-07', error: 'processor did not answer' });
      assert.deepEqual(await reconcileProcessorDay(deps, { day: '2026-03-07', force: false }), { status: 'skipped', day: '2026-03-07', reason: 'retry_later' });
      fake.failWith = null;
      const runs = (await auditEvents(t.service, { action: 'reconciliation.run', fromMs: null, toMs: null, beforeId: null }, 10)).rows;
      assert.equal(runs[0]?.outcome, 'failure');
    });

    it('a processor without settlements has nothing to reconcile', async () => {
      const outcome = await reconcileProcessorDay({ ...deps, processor: { name: 'sandbox' } }, { day: DAY, force: true });
      assert.deepEqual(outcome, { status: 'no_settlements', processor: 'sandbox' });
    });

    it('an operator resolves a difference with a note, audited; ledger verify reports the open ones but stays ok', async () => {
      const before = await verifyLedger(t.service.db);
      assert.equal(before.ok, true);
      assert.equal(before.openProcessorDifferences, 5);
      const open = await listDifferences(t.service, { filters: { open: true, day: DAY }, limit: 100, offset: 0 });
      const target = open.find((d) => d.kind === 'unknown_to_payrail')!;
      const refused = await resolveProcessorDifference(t.service, { id: target.id, note: '   ' }, OPERATOR).catch((e: unknown) => e);
      assert.ok(isApiError(refused) && refused.error === 'invalid_request');
      const resolved = await resolveProcessorDifference(t.service, { id: target.id, note: 'test transaction of the processor; no action' }, OPERATOR);
      assert.equal(resolved.resolved_by, 'cli:ops');
      const twice = await resolveProcessorDifference(t.service, { id: target.id, note: 'again' }, OPERATOR).catch((e: unknown) => e);
      assert.ok(isApiError(twice) && twice.error === 'invalid_state');
      const events = (await auditEvents(t.service, { action: 'reconciliation.resolve', fromMs: null, toMs: null, beforeId: null }, 10)).rows;
      assert.deepEqual(
        events.map((e) => `${e.outcome} ${e.target}`),
        [`failure processor difference ${target.id}`, `success processor difference ${target.id}`, `failure processor difference ${target.id}`],
      );
      assert.equal((await verifyLedger(t.service.db)).openProcessorDifferences, 4);
      await reconcileProcessorDay(deps, { day: DAY, force: true });
      assert.equal((await verifyLedger(t.service.db)).openProcessorDifferences, 4, 'a resolved difference found again stays resolved');
    });

    it('the operator panel lists open differences and resolves one with the CSRF token', async () => {
      await createUser({ db: t.service.db, clock: t.clock }, { email: 'ops@example.com', role: 'operator', password: 'correct horse battery staple' });
      const panel = new PanelClient(t.app);
      assert.equal((await panel.signIn('ops@example.com', 'correct horse battery staple')).status, 303);
      const page = await panel.get('/dashboard/operator/processor-differences');
      assert.equal(page.status, 200);
      const target = (await listDifferences(t.service, { filters: { open: true, day: DAY }, limit: 100, offset: 0 })).find(
        (d) => d.kind === 'missing_at_processor',
      )!;
      assert.match(page.body, new RegExp(`action="/dashboard/operator/processor-differences/${target.id}/resolve"`));
      const forged = await panel.post(`/dashboard/operator/processor-differences/${target.id}/resolve`, { note: 'x' }, { csrf: false });
      assert.equal(forged.status, 403);
      const done = await panel.post(`/dashboard/operator/processor-differences/${target.id}/resolve`, { note: 'settled late by the processor' });
      assert.equal(done.location, '/dashboard/operator/processor-differences?notice=difference_resolved');
      const resolvedPage = await panel.get('/dashboard/operator/processor-differences?status=resolved');
      assert.match(resolvedPage.body, /settled late by the processor/);
      assert.match(resolvedPage.body, /by user:ops@example\.com/);
      const ledger = await panel.get('/dashboard/operator/ledger');
      assert.match(textOf(ledger.body, 'notice-info') ?? '', /3 open difference\(s\).*not a ledger imbalance/);
    });

    it('a difference the reconciliation cleared is reopened when a re-run finds it again; one an operator resolved is not', async () => {
      setAmount(ref.b!, 2500);
      const again = await reconcileProcessorDay(deps, { day: DAY, force: true });
      assert.equal(again.status === 'done' && `${again.added} ${again.open}`, '0 4');
      const all = await listDifferences(t.service, { filters: { open: null, day: DAY }, limit: 100, offset: 0 });
      const amount = all.find((d) => d.kind === 'amount_mismatch')!;
      assert.deepEqual([amount.resolved_at_ms, amount.resolved_by, amount.resolution_note, amount.processor_cents], [null, null, null, 2500]);
      assert.equal(all.find((d) => d.kind === 'unknown_to_payrail')?.resolved_by, 'cli:ops');
      assert.equal(all.find((d) => d.kind === 'missing_at_processor')?.resolved_by, 'user:ops@example.com');
    });

    it('the daily job runs in the background, one run at a time; the worker stop aborts it and waits for it', async () => {
      // 2026-03-11 03:00: of the 7 ended days back, 03-08 and 03-10 are done and 03-07 waits for its retry.
      const service = {
        ...t.service,
        providers: { ...t.service.providers, cardProcessor: { name: 'fake', settlements: fake } },
        providerKeys: KEYS,
      } as unknown as Service;
      const job = processorReconciliationJob(service);
      const worker = new Worker([job], t.service.log);
      let release = () => {};
      fake.gate = new Promise((resolve) => (release = resolve));
      const calls = fake.calls;
      assert.equal(await job.runOnce(), 0, 'runOnce returns while the processor has not answered');
      await until(() => fake.calls > calls);
      assert.equal(await reconciliationDayStatus(t.service.db, '2026-03-04'), 'running', 'the oldest day without a run first');
      t.clock.advance(RECONCILIATION_CHECK_INTERVAL_MS);
      await job.runOnce();
      await tick();
      assert.equal(fake.calls, calls + 1, 'no second run while one is in flight');
      await worker.stop();
      assert.equal(await reconciliationDayStatus(t.service.db, '2026-03-04'), 'failed', 'the stop aborted the run, recorded as failed');
      fake.gate = null;
      release();

      const next = processorReconciliationJob(service);
      for (const day of ['2026-03-05', '2026-03-06', '2026-03-09']) {
        t.clock.advance(RECONCILIATION_CHECK_INTERVAL_MS);
        const started = fake.calls;
        // runOnce starts nothing until the previous run has ended (the in-flight guard).
        await until(async () => {
          await next.runOnce();
          await tick();
          return fake.calls > started;
        });
        await until(async () => (await reconciliationDayStatus(t.service.db, day)) === 'done');
      }
      const runs = await t.service.db.read((tx) =>
        tx.all<{ day: string }>("SELECT day FROM processor_reconciliation_runs WHERE day >= '2026-03-01' AND status = 'done' ORDER BY started_at_ms, day"),
      );
      const order = runs.map((r) => r.day).filter((day) => !['2026-03-08', '2026-03-10'].includes(day));
      assert.deepEqual(order, ['2026-03-05', '2026-03-06', '2026-03-09'], 'one missed day per check, oldest first');
      t.clock.advance(RECONCILIATION_CHECK_INTERVAL_MS);
      const before = fake.calls;
      await next.runOnce();
      await next.stop?.();
      assert.equal(fake.calls, before, 'nothing left to reconcile: 03-04 and 03-07 wait for their retry');
    });

    it('a run whose lease lapsed and whose day was taken over changes nothing of the newer run', async () => {
      const batch = (processorRef: string) => [{ batchId: 'S1', settledAtMs: Date.UTC(2026, 1, 20, 23), transactions: [txn(processorRef, 'charge', 700)] }];
      const saved = fake.batches;
      // The stale run would record its day; it rolls back instead.
      let release = () => {};
      fake.gate = new Promise((resolve) => (release = resolve));
      let calls = fake.calls;
      const stale = reconcileProcessorDay(deps, { day: '2026-02-20', force: false });
      await until(() => fake.calls > calls);
      fake.gate = null;
      t.clock.advance(RUN_LEASE_MS + 1);
      fake.batches = batch('anet-newer');
      assert.equal((await reconcileProcessorDay(deps, { day: '2026-02-20', force: false })).status, 'done');
      fake.batches = batch('anet-stale');
      release();
      assert.deepEqual(await stale, { status: 'skipped', day: '2026-02-20', reason: 'running' });
      const rows = await listDifferences(t.service, { filters: { open: null, day: '2026-02-20' }, limit: 100, offset: 0 });
      assert.deepEqual(
        rows.filter((d) => d.kind === 'unknown_to_payrail').map((d) => `${d.subject} ${d.resolved_by}`),
        ['ref:anet-newer null'],
      );
      assert.equal(await reconciliationDayStatus(t.service.db, '2026-02-20'), 'done');

      // The stale run would fail its day; the newer run's done stays.
      fake.gate = new Promise((resolve) => (release = resolve));
      calls = fake.calls;
      const failing = reconcileProcessorDay(deps, { day: '2026-02-21', force: false });
      await until(() => fake.calls > calls);
      fake.gate = null;
      t.clock.advance(RUN_LEASE_MS + 1);
      assert.equal((await reconcileProcessorDay(deps, { day: '2026-02-21', force: false })).status, 'done');
      fake.failWith = new Error('late timeout');
      release();
      assert.equal((await failing).status, 'failed');
      fake.failWith = null;
      assert.equal(await reconciliationDayStatus(t.service.db, '2026-02-21'), 'done');
      fake.batches = saved;
    });
  });
}
