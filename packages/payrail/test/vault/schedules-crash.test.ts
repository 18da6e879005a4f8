// Exactly once per run date (docs/api-decisions.md section 15), on
// PostgreSQL with real processes: for each of several run dates (an
// injected clock), two worker processes run the due schedules at once and
// one of them is SIGKILLed in the middle of a run (after it reserved a run's
// charge and while the processor is answering); a third process, later the
// same day, picks up what the dead one held. Every schedule is charged
// exactly once for every date: one (schedule, date) run, one charge each,
// all approved, the merchant credited exactly that, and the ledger verifies.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { availableCents } from '../helpers/lifecycle.ts';
import { callOk, type Json, newCustomer, saveCardFor } from '../helpers/stored.ts';
import { testConfigHome } from '../helpers/stores.ts';

const CHILD = path.join(import.meta.dirname, '..', 'helpers', 'schedule-worker-child.ts');
const SCHEDULES = 12;
const RUN_DATES = ['2031-03-01', '2031-03-02', '2031-03-03'];
const DAY_START_MS = Date.UTC(2031, 2, 1, 6);
const DAY_MS = 86_400_000;
/** Later the same day: past the dead worker's claim lease and its charges' recovery time. */
const LATER_MS = 2 * 60 * 60_000;
const AMOUNT_CENTS = 1500;
const CHILD_DEADLINE_MS = 120_000;

interface Child {
  readonly auths: string[];
  readonly done: Promise<number | null>;
  kill(): void;
  firstAuth: Promise<void>;
}

function startWorker(t: TestApp, clockMs: number, delayMs: number): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    cwd: path.join(import.meta.dirname, '..', '..'),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      XDG_CONFIG_HOME: testConfigHome(),
      ...t.store.env,
      PAYRAIL_TEST_CLOCK_MS: String(clockMs),
      PROCESSOR_DELAY_MS: String(delayMs),
      SCHEDULE_BATCH: '3',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const auths: string[] = [];
  let err = '';
  let announce: () => void = () => undefined;
  const firstAuth = new Promise<void>((resolve) => {
    announce = resolve;
  });
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.startsWith('AUTH ')) {
        auths.push(line.slice(5));
        announce();
      }
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_DEADLINE_MS);
  const done = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0 && signal !== 'SIGKILL') process.stderr.write(err);
      resolve(code);
    }),
  );
  return { auths, done, firstAuth, kill: () => child.kill('SIGKILL') };
}

describe('recurring schedules: exactly once per run date across workers and a SIGKILL (postgres)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('postgres');
  });
  after(() => t.close());

  it('charges every due schedule once for each date, whoever dies', async (context) => {
    t.clock.set(DAY_START_MS);
    const merchant = await t.newMerchant();
    const scheduleIds: number[] = [];
    for (let i = 0; i < SCHEDULES; i++) {
      const customer = await newCustomer(t, merchant, { identifier: `Customer ${i}` });
      const method = await saveCardFor(t, merchant, customer.id);
      const schedule = await callOk(
        t,
        merchant,
        'POST',
        `/api/v2/customers/${customer.id}/recurring-schedules`,
        {
          title: `Plan ${i}`,
          amount: AMOUNT_CENTS / 100,
          frequency: 'daily',
          next_run_date: RUN_DATES[0],
          payment_method_id: method.id,
        },
        201,
      );
      scheduleIds.push(schedule.id);
    }

    let killedMidRun = 0;
    for (const [index, date] of RUN_DATES.entries()) {
      const dayMs = DAY_START_MS + index * DAY_MS;
      // Two workers at once; the first to reach the processor dies there.
      const a = startWorker(t, dayMs, 300);
      const b = startWorker(t, dayMs, 50);
      await Promise.race([a.firstAuth, a.done]);
      a.kill();
      await a.done;
      if (a.auths.length > 0) killedMidRun++;
      assert.equal(await b.done, 0);
      // Later that day a third worker finds what the dead one held: lapsed claims and pending charges.
      const c = startWorker(t, dayMs + LATER_MS, 0);
      assert.equal(await c.done, 0);
      context.diagnostic(`${date}: killed worker reached the processor ${a.auths.length} time(s), others ${b.auths.length} + ${c.auths.length}`);

      const runs = await t.store.db.read((tx) =>
        tx.all<{ schedule_pk: number; n: number }>('SELECT schedule_pk, COUNT(*) AS n FROM schedule_runs WHERE run_date = ? GROUP BY schedule_pk', [date]),
      );
      assert.equal(runs.length, SCHEDULES, `every schedule ran on ${date}`);
      assert.ok(runs.every((run) => Number(run.n) === 1));
    }
    assert.ok(killedMidRun > 0, 'a worker was killed in the middle of a run');

    for (const id of scheduleIds) {
      const transactions = (await callOk(t, merchant, 'GET', `/api/v2/recurring-schedules/${id}/transactions?limit=100`)) as Json[];
      assert.equal(transactions.length, RUN_DATES.length, `schedule ${id}: one charge per date`);
      assert.ok(transactions.every((tx) => tx.status === 'Approved'));
      const schedule = await callOk(t, merchant, 'GET', `/api/v2/recurring-schedules/${id}`);
      assert.equal(schedule.next_run_date, '2031-03-04');
      assert.equal(schedule.status, 'active');
    }
    const charges = await t.store.db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM charges WHERE schedule_pk IS NOT NULL'));
    assert.equal(Number(charges?.n), SCHEDULES * RUN_DATES.length);
    assert.equal(await availableCents(t, merchant.merchant_id), SCHEDULES * RUN_DATES.length * AMOUNT_CENTS);
    assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
  });
});
