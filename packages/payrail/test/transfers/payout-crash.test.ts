// A crash with payouts in flight at MTN MoMo pays no receiver twice
// (behaviour.md section 18, issue's crash test). `payrail serve` runs as a
// child process with a corridor paid over mtn-momo against the MoMo stand-in
// in another process. Some transfers are taken by the stand-in and never
// answered ('hang-after-accept'), others are taken and their connection
// dropped ('drop-after-accept'); Payrail is SIGKILLed while its worker waits
// for the first kind. A restarted worker (its clock past the killed worker's
// claim leases) submits every open transfer again under the same
// X-Reference-Id: MoMo answers 409 for a reference it holds, so every
// transfer ends as the stand-in ended it, each reference is taken once, the
// merchant's balance moves by exactly what was paid, and the ledger
// verifies. The figures are printed for the release notes.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLAIM_LEASE_MS } from '../../src/flows/transfers/advance.ts';
import { openMigratedDb } from '../../src/store/open.ts';
import type { StandInTransfer } from '../providers/mtn-momo/stand-in.ts';
import { runCliJson } from '../helpers/cli.ts';
import { startServer } from '../helpers/server.ts';
import { tempDir, testConfigHome } from '../helpers/stores.ts';
import { receiver, SENDER } from '../helpers/transfers.ts';

const PACKAGE = path.join(import.meta.dirname, '..', '..');
const STAND_IN = path.join(PACKAGE, 'test', 'providers', 'mtn-momo', 'stand-in-main.ts');
const WORKER = path.join(PACKAGE, 'test', 'helpers', 'payout-worker-child.ts');
const SANDBOX_CORRIDORS = path.join(PACKAGE, 'config', 'corridors.sandbox.json');
/** Transfers paid normally before the line breaks. */
const PAID_FIRST = 3;
/** Transfers the stand-in takes and then drops the connection of. */
const DROPPED = 3;
/** Transfers the stand-in takes and never answers: in flight when Payrail dies. */
const HUNG = 5;
/** Bound on every wait for a child process or a condition. */
const DEADLINE_MS = 60_000;

interface StandInProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly subscriptionKey: string;
  readonly apiUser: string;
  readonly apiKey: string;
  control<T>(verb: string, body?: unknown): Promise<T>;
}

/** Starts stand-in-main.ts and reads the one JSON line it prints. */
async function startStandIn(): Promise<StandInProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', STAND_IN], { cwd: PACKAGE, stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('the stand-in did not start')), DEADLINE_MS);
    child.once('exit', (code) => reject(new Error(`the stand-in exited ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.includes('\n')) return;
      clearTimeout(timer);
      resolve(out.slice(0, out.indexOf('\n')));
    });
  });
  const started = JSON.parse(line) as { url: string; controlUrl: string; subscriptionKey: string; apiUser: string; apiKey: string };
  return {
    child,
    ...started,
    async control<T>(verb: string, body: unknown = {}) {
      const response = await fetch(`${started.controlUrl}${verb}`, { method: 'POST', body: JSON.stringify(body) });
      assert.equal(response.status, 200, `control ${verb}: ${await response.clone().text()}`);
      return (await response.json()) as T;
    },
  };
}

/** The sandbox corridors with Uganda paid over mtn-momo in MTN's sandbox. */
function corridorsFile(dir: string): string {
  const document = JSON.parse(fs.readFileSync(SANDBOX_CORRIDORS, 'utf8')) as { corridors: Array<Record<string, unknown>> };
  for (const corridor of document.corridors) {
    if (corridor.country === 'UG')
      Object.assign(corridor, { payout_connector: 'mtn-momo', payout_settings: { target_environment: 'sandbox', currency: 'EUR' } });
  }
  const file = path.join(dir, 'corridors.json');
  fs.writeFileSync(file, JSON.stringify(document));
  return file;
}

/** Runs the worker process over the store with its clock at `clockMs` until every transfer is final. */
async function runWorker(env: Record<string, string>, clockMs: number): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
    cwd: PACKAGE,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', XDG_CONFIG_HOME: testConfigHome(), ...env, PAYRAIL_TEST_CLOCK_MS: String(clockMs) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  assert.equal(code, 0, out);
  assert.match(out, /DONE\n$/);
}

interface TransferRow {
  readonly id: string;
  readonly state: number;
  readonly substate: number;
  readonly amount_cents: number;
}

async function transfersIn(dataDir: string): Promise<TransferRow[]> {
  const db = await openMigratedDb({ databaseUrl: null, dataDir, pgPoolSize: 2 });
  try {
    const rows = await db.read((tx) => tx.all<TransferRow>("SELECT id, state, substate, amount_cents FROM transfers WHERE service = '1005' ORDER BY pk"));
    return rows.map((row) => ({ id: row.id, state: Number(row.state), substate: Number(row.substate), amount_cents: Number(row.amount_cents) }));
  } finally {
    await db.close();
  }
}

async function waitFor(what: string, condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!(await condition())) {
    assert.ok(Date.now() < deadline, `timed out waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('SIGKILL of payrail serve with payouts in flight at MTN MoMo (sqlite)', () => {
  const dataDir = tempDir();
  let standIn: StandInProcess;
  before(async () => {
    standIn = await startStandIn();
  });
  after(() => {
    standIn.child.kill('SIGTERM');
  });

  it('ends every transfer once after a restart: none paid twice, balance exact, ledger verified', async (context) => {
    const env = {
      PAYRAIL_DATA_DIR: dataDir,
      PAYRAIL_CORRIDORS_FILE: corridorsFile(dataDir),
      PAYRAIL_MTN_MOMO_URL: standIn.url,
      PAYRAIL_MTN_MOMO_SUBSCRIPTION_KEY: standIn.subscriptionKey,
      PAYRAIL_MTN_MOMO_API_USER: standIn.apiUser,
      PAYRAIL_MTN_MOMO_API_KEY: standIn.apiKey,
    };
    const server = await startServer({ ...env, PAYRAIL_SANDBOX_DELAY_MS: '0' });
    const transferKey = /transfer API key +(\S+)/.exec(server.stdout())?.[1] ?? assert.fail(`no transfer API key in ${server.stdout()}`);
    const headers = { 'API-KEY': transferKey, 'content-type': 'application/json' };
    const balanceCents = async () =>
      ((await (await fetch(`${server.url}/api/agent_balance`, { headers })).json()) as { balance: { balance: number } }).balance.balance;
    const startCents = await balanceCents();
    // Distinct amounts and receivers, so a payout made twice could not hide behind another's.
    const execute = (index: number) =>
      fetch(`${server.url}/api/transfer`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          id: String(900_000 + index),
          sender_phone: SENDER,
          receiver_phone: receiver(String(3000 + index), 'UG'),
          amount: `${10 + index}.00`,
          service: '1005',
          receiver_country: 'UG',
          receiver_currency: 'UGX',
          attribute: [{ name: 'receiverName', value: `Receiver ${index}` }],
        }),
      }).then((response) => response.status);
    const taken = async () => (await standIn.control<{ taken: number }>('transfers')).taken;

    for (let i = 0; i < PAID_FIRST; i++) assert.equal(await execute(i), 200);
    await waitFor('the first transfers paid', async () => (await transfersIn(dataDir)).every((row) => row.state === 60));
    await standIn.control('failNext', { mode: 'hang-after-accept', count: HUNG, target: 'transfer' });
    await standIn.control('failNext', { mode: 'drop-after-accept', count: DROPPED, target: 'transfer' });
    for (let i = PAID_FIRST; i < PAID_FIRST + HUNG + DROPPED; i++) assert.equal(await execute(i), 200);
    // Kill once the stand-in holds every one of them.
    await waitFor('every payout taken by the stand-in', async () => (await taken()) >= PAID_FIRST + HUNG + DROPPED);
    await server.kill();

    const atKill = await transfersIn(dataDir);
    const openAtKill = atKill.filter((row) => row.state !== 60 && row.state !== 80).length;
    assert.ok(openAtKill >= HUNG, `the hung payouts were open at the kill: ${JSON.stringify(atKill)}`);
    const takenAtKill = await taken();

    await runWorker(env, Date.now() + CLAIM_LEASE_MS + 1_000);
    const rows = await transfersIn(dataDir);
    const { transfers, taken: takenAfter } = await standIn.control<{ transfers: StandInTransfer[]; taken: number }>('transfers');
    const figures = {
      transfers: rows.length,
      open_at_kill: openAtKill,
      taken_by_momo_at_kill: takenAtKill,
      taken_by_momo_after_restart: takenAfter,
      momo_transfers: transfers.length,
    };
    context.diagnostic(JSON.stringify(figures));
    console.log(`mtn-momo crash figures: ${JSON.stringify(figures)}`);

    assert.deepEqual(
      rows.filter((row) => row.state !== 60),
      [],
      'every transfer paid',
    );
    assert.equal(takenAfter, takenAtKill, 'no payout taken twice by MoMo after the restart');
    assert.equal(transfers.length, rows.length, 'one MoMo transfer per Payrail transfer');
    assert.equal(new Set(transfers.map((transfer) => transfer.referenceId)).size, transfers.length, 'one MoMo transfer per reference');
    assert.equal(new Set(transfers.map((transfer) => transfer.msisdn)).size, rows.length, 'every receiver paid once');
    const paidCents = rows.reduce((sum, row) => sum + row.amount_cents, 0);
    const restarted = await startServer({ ...env, PAYRAIL_WORKER: 'off' });
    try {
      const after = ((await (await fetch(`${restarted.url}/api/agent_balance`, { headers })).json()) as { balance: { balance: number } }).balance.balance;
      assert.equal(after, startCents - paidCents, 'the balance moved by exactly what was paid');
    } finally {
      await restarted.stop();
    }
    const verified = await runCliJson<{ ok: boolean; problems: string[] }>(['ledger', 'verify'], { PAYRAIL_DATA_DIR: dataDir });
    assert.deepEqual([verified.ok, verified.problems], [true, []]);
  });
});
