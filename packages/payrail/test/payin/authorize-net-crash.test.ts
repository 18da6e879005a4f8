// A crash with card charges in flight at Authorize.net charges no card twice
// (behaviour.md section 18). `payrail serve` with PAYRAIL_CARD_PROCESSOR=
// authorize-net runs as a child process against the Authorize.net stand-in
// in another process. Some charges reach the stand-in, which applies them and
// then drops the connection ('drop-after-commit'); others are applied and
// answered late ('slow'), and Payrail is SIGKILLed while it waits for them.
// A restarted worker (its clock past the charges' recovery time) asks about
// every pending charge again with the same invoice number: Authorize.net's
// duplicate window answers with the original transaction, so every charge
// resolves to what the stand-in did, none is charged twice, the merchant's
// balance moves by exactly what the stand-in captured, and the ledger
// verifies. The figures are printed for the release notes.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { merchantAccount } from '../../src/domain/ledger.ts';
import { CHARGE_RECOVERY_AFTER_MS } from '../../src/flows/payin/charge.ts';
import { getAccount } from '../../src/store/ledger.ts';
import { openMigratedDb } from '../../src/store/open.ts';
import { runCliJson } from '../helpers/cli.ts';
import { BILLING, cvvFor, EXPIRY_MONTH, EXPIRY_YEAR } from '../helpers/payin.ts';
import { startServer } from '../helpers/server.ts';
import { tempDir, testConfigHome } from '../helpers/stores.ts';
import type { StandInTransaction } from '../providers/authorize-net/stand-in.ts';

const PACKAGE = path.join(import.meta.dirname, '..', '..');
const STAND_IN = path.join(PACKAGE, 'test', 'providers', 'authorize-net', 'stand-in-main.ts');
const WORKER = path.join(PACKAGE, 'test', 'helpers', 'schedule-worker-child.ts');
/** Charges answered normally before the line breaks. */
const ANSWERED_FIRST = 3;
/** Charges the stand-in applies and then drops the connection of. */
const DROPPED = 3;
/** Charges the stand-in applies and answers only after Payrail is dead. */
const SLOW = 5;
/** Longer than the test: these answers never reach the killed server. */
const SLOW_MS = 60_000;
/** Bound on every wait for a child process. */
const CHILD_DEADLINE_MS = 60_000;

interface StandInProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly loginId: string;
  readonly transactionKey: string;
  readonly signatureKey: string;
  control<T>(verb: string, body?: unknown): Promise<T>;
}

/** Starts stand-in-main.ts and reads the one JSON line it prints. */
async function startStandIn(): Promise<StandInProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', STAND_IN], { cwd: PACKAGE, stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('the stand-in did not start')), CHILD_DEADLINE_MS);
    child.once('exit', (code) => reject(new Error(`the stand-in exited ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.includes('\n')) return;
      clearTimeout(timer);
      resolve(out.slice(0, out.indexOf('\n')));
    });
  });
  const started = JSON.parse(line) as { url: string; controlUrl: string; loginId: string; transactionKey: string; signatureKey: string };
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

/** Runs the worker once over the store with its clock at `clockMs`; answers the references it authorized again. */
async function runWorker(env: Record<string, string>, clockMs: number): Promise<string[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
    cwd: PACKAGE,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', XDG_CONFIG_HOME: testConfigHome(), ...env, PAYRAIL_TEST_CLOCK_MS: String(clockMs) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_DEADLINE_MS);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  assert.equal(code, 0, out);
  assert.match(out, /DONE\n$/);
  return [...out.matchAll(/^AUTH (\S+)$/gm)].map((match) => match[1]!);
}

describe('SIGKILL of payrail serve with charges in flight at Authorize.net (sqlite)', () => {
  const dataDir = tempDir();
  let standIn: StandInProcess;
  before(async () => {
    standIn = await startStandIn();
  });
  after(async () => {
    standIn.child.kill('SIGTERM');
  });

  it('resolves every charge after a restart to what Authorize.net did: none charged twice, balances exact, ledger verified', async (context) => {
    const env = {
      PAYRAIL_DATA_DIR: dataDir,
      PAYRAIL_CARD_PROCESSOR: 'authorize-net',
      PAYRAIL_AUTHORIZE_NET_URL: standIn.url,
      PAYRAIL_AUTHORIZE_NET_LOGIN_ID: standIn.loginId,
      PAYRAIL_AUTHORIZE_NET_TRANSACTION_KEY: standIn.transactionKey,
      PAYRAIL_AUTHORIZE_NET_SIGNATURE_KEY: standIn.signatureKey,
    };
    const server = await startServer(env);
    const printed = (label: string) => new RegExp(`${label} +(\\S+)`).exec(server.stdout())?.[1] ?? assert.fail(`no ${label} in ${server.stdout()}`);
    const [transferKey, apiKey, pin, tokenizationToken] = ['transfer API key', 'source API key', 'source PIN', 'tokenization token'].map(printed) as [
      string,
      string,
      string,
      string,
    ];
    const basic = `Basic ${Buffer.from(`${apiKey}:${pin}`).toString('base64')}`;
    const balanceCents = async () =>
      ((await (await fetch(`${server.url}/api/agent_balance`, { headers: { 'API-KEY': transferKey } })).json()) as { balance: { balance: number } }).balance
        .balance;
    const startCents = await balanceCents();

    // Every nonce first: tokenizing never reaches the processor, so the stand-in's failures hit charges only.
    const nonces: string[] = [];
    for (let i = 0; i < ANSWERED_FIRST + DROPPED + SLOW; i++) {
      const card = '4111111111111111';
      const response = await fetch(`${server.url}/api/v2/tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokenizationToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ card_number: card, expiry_month: EXPIRY_MONTH, expiry_year: EXPIRY_YEAR, cvv2: cvvFor(card) }),
      });
      nonces.push(((await response.json()) as { nonce: string }).nonce);
    }
    // Distinct amounts, so a charge applied twice could not hide behind another's total.
    const charge = (nonce: string, index: number) =>
      fetch(`${server.url}/api/v2/transactions/charge`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 10 + index, source: nonce, expiry_month: EXPIRY_MONTH, expiry_year: EXPIRY_YEAR, billing_info: { ...BILLING } }),
      }).then(async (response) => ((await response.json()) as { status: string }).status);

    for (let i = 0; i < ANSWERED_FIRST; i++) assert.equal(await charge(nonces[i]!, i), 'Approved');
    const requestsBefore = (await standIn.control<{ count: number }>('requestCount')).count;
    await standIn.control('failNext', { mode: 'drop-after-commit', count: DROPPED });
    await standIn.control('failNext', { mode: `slow:${SLOW_MS}`, count: SLOW });
    const inFlight = nonces.slice(ANSWERED_FIRST).map((nonce, i) => charge(nonce, ANSWERED_FIRST + i).catch(() => 'connection lost'));
    // Kill once every one of them has reached the stand-in (and been applied there).
    const deadline = Date.now() + CHILD_DEADLINE_MS;
    while ((await standIn.control<{ count: number }>('requestCount')).count < requestsBefore + DROPPED + SLOW) {
      assert.ok(Date.now() < deadline, 'the charges did not all reach the stand-in');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await server.kill();
    const answers = await Promise.all(inFlight);

    const atKill = await chargesOf(dataDir);
    const pendingAtKill = atKill.filter((row) => row.status === 'pending').length;
    const appliedAtStandIn = (await standIn.control<StandInTransaction[]>('transactions')).length;
    assert.equal(appliedAtStandIn, ANSWERED_FIRST + DROPPED + SLOW, 'the stand-in applied every charge that reached it');
    assert.ok(pendingAtKill >= SLOW, `the slow charges were pending at the kill (${JSON.stringify(answers)})`);

    const resent = await runWorker(env, Date.now() + CHARGE_RECOVERY_AFTER_MS + 1_000);
    const transactions = await standIn.control<StandInTransaction[]>('transactions');
    const rows = await chargesOf(dataDir);
    const figures = {
      charges: rows.length,
      in_flight_at_kill: pendingAtKill,
      resolved_by_worker: pendingAtKill - rows.filter((row) => row.status === 'pending').length,
      authorizations_sent_again: resent.length,
      stand_in_transactions: transactions.length,
      duplicates_refused_at_stand_in: resent.length - (transactions.length - appliedAtStandIn),
    };
    context.diagnostic(JSON.stringify(figures));
    console.log(`authorize-net crash figures: ${JSON.stringify(figures)}`);

    assert.deepEqual(
      rows.filter((row) => row.status !== 'approved' || row.stage !== 'captured'),
      [],
      'every charge captured',
    );
    assert.equal(transactions.length, appliedAtStandIn, 'no charge applied twice at Authorize.net');
    const invoices = transactions.map((transaction) => transaction.invoiceNumber);
    assert.equal(new Set(invoices).size, invoices.length, 'one transaction per invoice number');
    const capturedAtStandIn = transactions.reduce((sum, transaction) => sum + transaction.settleAmountCents, 0);
    assert.equal(
      rows.reduce((sum, row) => sum + row.captured_cents, 0),
      capturedAtStandIn,
    );
    assert.equal(await availableCentsIn(dataDir), startCents + capturedAtStandIn);
    const verified = await runCliJson<{ ok: boolean; problems: string[] }>(['ledger', 'verify'], { PAYRAIL_DATA_DIR: dataDir });
    assert.deepEqual([verified.ok, verified.problems], [true, []]);
  });
});

interface ChargeRow {
  readonly pk: number;
  readonly status: string;
  readonly stage: string | null;
  readonly captured_cents: number;
}

async function chargesOf(dataDir: string): Promise<ChargeRow[]> {
  const db = await openMigratedDb({ databaseUrl: null, dataDir, pgPoolSize: 2 });
  try {
    const rows = await db.read((tx) => tx.all<ChargeRow>("SELECT pk, status, stage, captured_cents FROM charges WHERE kind = 'charge' ORDER BY pk"));
    return rows.map((row) => ({ pk: Number(row.pk), status: row.status, stage: row.stage, captured_cents: Number(row.captured_cents) }));
  } finally {
    await db.close();
  }
}

async function availableCentsIn(dataDir: string): Promise<number> {
  const db = await openMigratedDb({ databaseUrl: null, dataDir, pgPoolSize: 2 });
  try {
    const merchant = await db.read((tx) => tx.get<{ id: string }>('SELECT id FROM merchants'));
    const account = await db.read((tx) => getAccount(tx, merchantAccount(merchant!.id, 'available')));
    return Number(account!.balance_cents);
  } finally {
    await db.close();
  }
}
