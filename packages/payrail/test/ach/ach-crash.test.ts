// SIGKILL of the worker while the sandbox's ACH clock advances and the ACH
// sweep runs (behaviour.md section 17), on both stores. Checks of every
// sandbox scenario (each return code, plain settlement), submissions whose
// answer was lost and voids whose answer was lost are followed by a worker
// process (helpers/ach-worker-child.ts) that is killed several times at
// random moments; a restarted worker (its clock past the killed one's
// leases) takes over. Afterwards every check is final in the state its
// account number chose, each status event exists once per move made, the
// balances are exact and the ledger verifies.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SANDBOX_ACH_RETURNS } from '../../src/providers/sandbox/ach-network.ts';
import { EVENT_VIEWS } from '../../src/flows/events/emit.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { ACH_CLAIM_LEASE_MS } from '../../src/flows/ach/lifecycle.ts';
import { beginAchVoid } from '../../src/store/ach/transitions.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { achBalances, createCheck } from '../helpers/checks.ts';
import { STORE_KINDS, testConfigHome } from '../helpers/stores.ts';

const PACKAGE = path.join(import.meta.dirname, '..', '..');
const WORKER = path.join(PACKAGE, 'test', 'helpers', 'ach-worker-child.ts');
/** Monday 30 November 2026, 10:00 UTC. */
const MONDAY_10_UTC = Date.UTC(2026, 10, 30, 10, 0);
/** As the child's round step (helpers/ach-worker-child.ts). */
const ROUND_STEP_MS = 2 * 60 * 60_000;
const KILLS = 5;
const DEADLINE_MS = 90_000;
const ENDINGS = ['0001', '0002', '0003', '0004', '0005', '0006', '1111', '2222'] as const;

interface ChildRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly out: string;
}

/** Runs the worker child from `clockMs`; kills it `killAfterMs` after its first sweep when given. */
function runWorker(env: Record<string, string>, clockMs: number, merchantId: string, killAfterMs: number | null): Promise<ChildRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
    cwd: PACKAGE,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      XDG_CONFIG_HOME: testConfigHome(),
      ...env,
      PAYRAIL_TEST_CLOCK_MS: String(clockMs),
      PAYRAIL_TEST_MERCHANT: merchantId,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  let armed = false;
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (killAfterMs !== null && !armed && out.includes('SWEPT 0\n')) {
      armed = true;
      setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    }
  });
  const guard = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS);
  return new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, out });
    }),
  );
}

/** Where the next worker's clock starts: past the last round the killed one began, and past its leases. */
function clockAfter(run: ChildRun, startMs: number): number {
  const clocks = [...run.out.matchAll(/CLOCK ([0-9]+)/g)].map((match) => Number(match[1]));
  return Math.max(startMs, ...clocks) + ROUND_STEP_MS + ACH_CLAIM_LEASE_MS;
}

for (const kind of STORE_KINDS) {
  describe(`SIGKILL of the ACH worker (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
      t.clock.set(MONDAY_10_UTC);
    });
    after(async () => t.close());

    it('leaves every check in one final state, events once, balances exact, ledger verified', async (context) => {
      const merchant = await t.newMerchant();
      const checks = new Map<number, { ending: string; amount: number; kind: 'accepted' | 'lost' | 'voiding' }>();
      for (let i = 0; i < 24; i++) {
        const ending = ENDINGS[i % ENDINGS.length]!;
        const amount = 1_000 + i;
        checks.set(await createCheck(t.service, merchant, { amountCents: amount, accountNumber: `7${String(i).padStart(3, '0')}${ending}` }), {
          ending,
          amount,
          kind: 'accepted',
        });
      }
      for (let i = 0; i < 4; i++) {
        const amount = 2_000 + i;
        checks.set(await createCheck(t.service, merchant, { amountCents: amount, accountNumber: `8${i}001111`, submit: false }), {
          ending: '1111',
          amount,
          kind: 'lost',
        });
      }
      for (let i = 0; i < 4; i++) {
        const amount = 3_000 + i;
        const pk = await createCheck(t.service, merchant, { amountCents: amount, accountNumber: `9${i}002222` });
        const begun = await beginAchVoid(t.service.db, {
          chargePk: pk,
          merchantId: merchant.merchant_id,
          nowMs: MONDAY_10_UTC,
          views: EVENT_VIEWS,
          nextCheckAtMs: MONDAY_10_UTC + 30_000,
        });
        assert.equal(begun.kind, 'moved');
        checks.set(pk, { ending: '2222', amount, kind: 'voiding' });
      }

      // Past the lost calls' deadlines, before the day's cut-off: the voids still void.
      let clockMs = MONDAY_10_UTC + 60_000;
      let killed = 0;
      for (let i = 0; i < KILLS; i++) {
        const run = await runWorker(t.store.env, clockMs, merchant.merchant_id, 20 + Math.floor(Math.random() * 250));
        if (run.signal === 'SIGKILL') killed += 1;
        else assert.equal(run.code, 0, run.out);
        clockMs = clockAfter(run, clockMs);
        if (run.out.includes('DONE')) break;
      }
      const last = await runWorker(t.store.env, clockMs, merchant.merchant_id, null);
      assert.equal(last.code, 0, last.out);
      assert.match(last.out, /DONE\n$/);
      context.diagnostic(`killed ${killed} times`);
      assert.ok(killed >= 1, 'the worker was killed at least once mid-run');

      const entries = await t.service.db.read((tx) =>
        tx.all<{ charge_pk: number | string; state: string; return_code: string | null; next_check_at_ms: unknown }>(
          'SELECT charge_pk, state, return_code, next_check_at_ms FROM ach_entries WHERE merchant_id = ?',
          [merchant.merchant_id],
        ),
      );
      assert.equal(entries.length, checks.size);
      let settledCents = 0;
      for (const entry of entries) {
        const pk = Number(entry.charge_pk);
        const check = checks.get(pk)!;
        assert.equal(entry.next_check_at_ms, null, `check ${pk} is final`);
        const scenario = SANDBOX_ACH_RETURNS[check.ending];
        if (check.kind === 'voiding') {
          assert.equal(entry.state, 'voided', `check ${pk}`);
        } else if (scenario !== undefined) {
          assert.deepEqual([entry.state, entry.return_code], ['returned', scenario.code], `check ${pk}`);
        } else {
          assert.equal(entry.state, 'settled', `check ${pk}`);
          settledCents += check.amount;
        }
      }
      assert.deepEqual(await achBalances(t.service, merchant.merchant_id), {
        available: settledCents,
        ach_pending: 0,
        ach_payins: -settledCents,
        ach_returns_due: 0,
      });

      // One event per move made, never two.
      const events = await t.service.db.read((tx) =>
        tx.all<{ type: string; data_json: string }>('SELECT type, data_json FROM events WHERE merchant_id = ?', [merchant.merchant_id]),
      );
      const seen = new Map<string, number>();
      for (const event of events) {
        const data = JSON.parse(event.data_json) as { id?: number | string; reference_number?: number };
        const key = `${Number(data.reference_number ?? data.id)} ${event.type}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
      }
      assert.deepEqual(
        [...seen].filter(([, n]) => n !== 1),
        [],
      );
      const moves = await t.service.db.read((tx) =>
        tx.all<{ charge_pk: number | string; originated_at_ms: unknown; settled_at_ms: unknown; state: string }>(
          'SELECT charge_pk, originated_at_ms, settled_at_ms, state FROM ach_entries WHERE merchant_id = ?',
          [merchant.merchant_id],
        ),
      );
      for (const move of moves) {
        const pk = Number(move.charge_pk);
        assert.equal(seen.get(`${pk} charge.approved`), 1, `check ${pk} approved once`);
        assert.equal(seen.get(`${pk} charge.originated`) ?? 0, move.originated_at_ms === null ? 0 : 1, `check ${pk} originated`);
        assert.equal(seen.get(`${pk} charge.settled`) ?? 0, move.settled_at_ms === null ? 0 : 1, `check ${pk} settled`);
        assert.equal(seen.get(`${pk} charge.returned`) ?? 0, move.state === 'returned' ? 1 : 0, `check ${pk} returned`);
        assert.equal(seen.get(`${pk} charge.voided`) ?? 0, move.state === 'voided' ? 1 : 0, `check ${pk} voided`);
      }
      const report = await verifyLedger(t.service.db);
      assert.deepEqual(report.problems, []);
    });
  });
}
