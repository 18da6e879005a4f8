// `npm run bench`: measures Payrail over real HTTP on this machine, load
// generator included. For the embedded store (and PostgreSQL when
// DATABASE_URL is set) it starts `payrail serve`, funds a merchant, then
// drives with autocannon at a fixed concurrency for a fixed time:
//   1. POST /api/transfer with unique ids (every answer is a durable commit),
//      then the time until every acknowledged transfer is final (end to end),
//   2. GET /api/status/:id of the transfers just created,
//   3. tokenize + charge (POST /api/v2/tokens then /api/v2/transactions/charge),
//   4. the card lifecycle: tokenize + authorize, then capture and (after the
//      batch closes) refund each authorization once,
// and, in the same run, a bare route of the same framework as the ceiling.
// Ends with `payrail ledger verify`. Knobs: BENCH_DURATION_S, BENCH_CONNECTIONS,
// BENCH_SOAK_S (memory and p99 soak), BENCH_SKIP_SQLITE=1, BENCH_SKIP_POSTGRES=1, BENCH_HUNG_WEBHOOK=1 (the
// execute measure again with a webhook endpoint that accepts connections and
// never answers, subscribed to every event: deliveries must not slow the API),
// BENCH_PG_WORKERS (on PostgreSQL, how many `payrail worker` processes drive
// the transfers beside one `payrail serve` without its inline worker; default
// 1, 0 for the inline worker).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { type CpuPerRequest, cpuText, startCpu, type Watched } from './cpu.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin', 'payrail.js');
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 15);
/** BENCH_SOAK_S > 0 adds a tokenize + charge soak of that length with RSS samples (600 for the 10-minute soak). */
const SOAK_S = Number(process.env.BENCH_SOAK_S ?? 0);
const SOAK_SLICE_S = 30;
const HUNG_WEBHOOK = process.env.BENCH_HUNG_WEBHOOK === '1';
const PG_WORKERS = Number(process.env.BENCH_PG_WORKERS ?? 1);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const WARMUP_S = 3;
const START_TIMEOUT_MS = 60_000;
/** How long the bench waits for the worker to finish the transfers of a load. */
const DRAIN_TIMEOUT_MS = 120_000;
const DRAIN_POLL_MS = 100;

interface Measure {
  name: string;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  non2xx: number;
  errors: number;
  total: number;
  cpu: CpuPerRequest | null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** Starts a server process on a free port and waits until it answers /healthz. */
async function startProcess(args: string[], env: Record<string, string>, healthPath: string): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${err}`);
    const ok = await fetch(`http://127.0.0.1:${port}${healthPath}`, { method: healthPath === '/bare' ? 'POST' : 'GET' }).then(
      (r) => r.status < 500,
      () => false,
    );
    if (ok) return { child, port };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`start timed out: ${err}`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

function cli(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env, LOG_LEVEL: 'warn' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`payrail ${args.join(' ')}: ${err}`))));
  });
}

/** The processes the measures of the moment keep busy (their CPU per request is reported with each). */
let watched: Watched | null = null;

async function load(name: string, options: autocannon.Options): Promise<Measure> {
  const cpu = watched === null ? null : startCpu(watched);
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, ...options });
  return {
    cpu: cpu === null ? null : cpu(result.requests.total),
    name,
    rps: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    max_ms: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    total: result.requests.total,
  };
}

const TRANSFER_BODY = (id: string) =>
  JSON.stringify({
    id,
    sender_phone: '+14155550100',
    receiver_phone: '+254712345678',
    amount: '1.00',
    service: '1001',
    receiver_country: 'KE',
    receiver_currency: 'KES',
    attribute: [],
  });

/**
 * One tokenize then one charge of the fresh nonce, per connection, in a loop.
 * With `authorized`, the charges authorize only (capture: false) and their
 * reference numbers are collected there, for the capture and refund measures.
 */
function chargeRequests(source: { api_key: string; pin: string; tokenization_token: string }, authorized?: number[]): autocannon.Request[] {
  const basic = `Basic ${Buffer.from(`${source.api_key}:${source.pin}`).toString('base64')}`;
  return [
    {
      method: 'POST',
      path: '/api/v2/tokens',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${source.tokenization_token}` },
      body: JSON.stringify({ card_number: '4111111111111111', expiry_month: 12, expiry_year: 2030, cvv2: '123' }),
      onResponse: (_status: number, body: string, context: object) => {
        (context as Record<string, unknown>).nonce = (JSON.parse(body) as { nonce?: string }).nonce;
      },
    },
    {
      method: 'POST',
      path: '/api/v2/transactions/charge',
      headers: { 'content-type': 'application/json', authorization: basic },
      setupRequest: (request: autocannon.Request, context: object) => ({
        ...request,
        body: JSON.stringify({
          amount: 10.5,
          source: (context as Record<string, unknown>).nonce,
          expiry_month: 12,
          expiry_year: 2030,
          billing_info: { first_name: 'Ada', last_name: 'Lovelace', street: '1 Main St', city: 'Austin', state: 'TX', zip: '78701', country: 'US' },
          ...(authorized === undefined ? {} : { capture: false }),
        }),
      }),
      ...(authorized === undefined
        ? {}
        : {
            onResponse: (status: number, body: string) => {
              if (status === 200) authorized.push((JSON.parse(body) as { reference_number: number }).reference_number);
            },
          }),
    },
  ];
}

/** One lifecycle POST (capture, refund) per reference of `refs`, each reference once, in order. */
function operationRequest(source: { api_key: string; pin: string }, operation: 'capture' | 'refund', refs: readonly number[]): autocannon.Request {
  const basic = `Basic ${Buffer.from(`${source.api_key}:${source.pin}`).toString('base64')}`;
  let next = 0;
  return {
    method: 'POST',
    path: `/api/v2/transactions/${operation}`,
    headers: { 'content-type': 'application/json', authorization: basic },
    setupRequest: (request: autocannon.Request) => ({ ...request, body: JSON.stringify({ reference_number: refs[next++ % refs.length] }) }),
  };
}

/**
 * The card lifecycle (docs/api-decisions.md section 10): tokenize + authorize
 * pairs for the measure's duration, then one capture of each authorization,
 * the batch closed (so they settle), and one full refund of each.
 */
async function lifecycleMeasures(
  label: string,
  base: string,
  env: Record<string, string>,
  source: { api_key: string; pin: string; tokenization_token: string },
) {
  const refs: number[] = [];
  const authorize = await load(`${label}: tokenize + authorize (pairs/s)`, { url: base, requests: chargeRequests(source, refs) });
  const capture = await load(`${label}: POST capture`, { url: base, amount: refs.length, requests: [operationRequest(source, 'capture', refs)] });
  await cli(['batch', 'close'], env);
  const refund = await load(`${label}: POST refund`, { url: base, amount: refs.length, requests: [operationRequest(source, 'refund', refs)] });
  return [{ ...authorize, rps: Math.round(authorize.rps / 2) }, capture, refund];
}

/** Memory over a long tokenize + charge run: RSS sampled after each slice. */
async function soak(label: string, base: string, pid: number, source: { api_key: string; pin: string; tokenization_token: string }): Promise<void> {
  const slices = Math.max(2, Math.round(SOAK_S / SOAK_SLICE_S));
  const samples: number[] = [];
  const p99s: number[] = [];
  let pairs = 0;
  for (let i = 0; i < slices; i++) {
    const result = await autocannon({ url: base, connections: CONNECTIONS, duration: SOAK_SLICE_S, requests: chargeRequests(source) });
    pairs += result.requests.total / 2;
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    samples.push(rssKb);
    p99s.push(result.latency.p99);
    process.stdout.write(
      `${label}: soak ${(i + 1) * SOAK_SLICE_S} s  RSS ${rssKb} kB  ${Math.round(result.requests.average / 2)} pairs/s  p99 ${result.latency.p99} ms\n`,
    );
  }
  // The first slice includes warm-up (JIT, caches); growth is measured after it.
  const growth = samples.at(-1)! - samples[0]!;
  const sorted = [...p99s.slice(1)].sort((a, b) => a - b);
  process.stdout.write(
    `${label}: soak ${Math.round(pairs)} pairs in ${slices * SOAK_SLICE_S} s; RSS ${samples[0]} -> ${samples.at(-1)} kB (${growth >= 0 ? '+' : ''}${growth} kB after warm-up); ` +
      `p99 per slice after warm-up ${sorted[0]}-${sorted.at(-1)} ms (first ${p99s[1]}, last ${p99s.at(-1)})\n`,
  );
}

/** A webhook receiver that accepts every connection and never answers (closed at the end). */
async function hungReceiver(): Promise<{ port: number; close: () => void }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  const port = await new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    }),
  );
  return {
    port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/** Counts transfers that are not final yet, straight from the store the server uses. */
function openedCounter(env: Record<string, string>): { notFinal: () => Promise<number>; close: () => Promise<void> } {
  if (env.DATABASE_URL) {
    const sql = postgres(env.DATABASE_URL.replace(/[?&]options=[^&]*/, ''), {
      max: 1,
      onnotice: () => undefined,
      connection: { search_path: /search_path%3D([a-z0-9_]+)/.exec(env.DATABASE_URL)?.[1] ?? 'public' },
    });
    return {
      notFinal: async () => Number((await sql.unsafe('SELECT COUNT(*) AS n FROM transfers WHERE final = 0'))[0]?.n ?? 0),
      close: () => sql.end(),
    };
  }
  const db = new Database(path.join(env.PAYRAIL_DATA_DIR!, 'payrail.sqlite'), { readonly: true });
  return {
    notFinal: async () => Number((db.prepare('SELECT COUNT(*) AS n FROM transfers WHERE final = 0').get() as { n: number }).n),
    close: async () => {
      db.close();
    },
  };
}

/**
 * End to end: how long after the load the last acknowledged transfer became
 * final, and so how many transfers per second went all the way through.
 */
async function drain(label: string, env: Record<string, string>, acknowledged: number): Promise<void> {
  const counter = openedCounter(env);
  const startedMs = Date.now();
  try {
    let left = await counter.notFinal();
    while (left > 0 && Date.now() - startedMs < DRAIN_TIMEOUT_MS) {
      await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
      left = await counter.notFinal();
    }
    const drainS = (Date.now() - startedMs) / 1000;
    const finalPerS = Math.round(acknowledged / (DURATION_S + drainS));
    process.stdout.write(
      `${label}: ${acknowledged} acknowledged transfers final ${drainS.toFixed(1)} s after the load (${left} still not final): ${finalPerS} final transfers/s end to end\n`,
    );
  } finally {
    await counter.close();
  }
}

async function benchStore(label: string, env: Record<string, string>, bareRps: number): Promise<Measure[]> {
  // Sandbox scenarios move at once, so the end-to-end figure measures Payrail, not the simulated network's pace.
  // One client on one address at full speed: the request rate limits (docs/api-decisions.md section 13) are lifted for the measure.
  const unlimited = { PAYRAIL_RATE_LIMIT_PER_MIN: '10000000', PAYRAIL_RATE_LIMIT_PER_ADDRESS_PER_MIN: '10000000' };
  const workerProcesses = env.DATABASE_URL ? PG_WORKERS : 0;
  const serveEnv = { ...env, ...unlimited, LOG_LEVEL: 'warn', PAYRAIL_SANDBOX_DELAY_MS: '0', ...(workerProcesses > 0 ? { PAYRAIL_WORKER: 'off' } : {}) };
  const { child, port } = await startProcess([BIN, 'serve'], serveEnv, '/healthz');
  const workers = Array.from({ length: workerProcesses }, () =>
    spawn(process.execPath, [BIN, 'worker'], { env: { ...process.env, ...serveEnv }, stdio: ['ignore', 'ignore', 'inherit'] }),
  );
  process.stdout.write(`${label}: one server, ${workerProcesses > 0 ? `${workerProcesses} worker process(es)` : 'its inline worker'}\n`);
  watched = { server: child.pid!, workers: workers.map((w) => w.pid!), postgres: Boolean(env.DATABASE_URL) };
  const base = `http://127.0.0.1:${port}`;
  const measures: Measure[] = [];
  try {
    const merchant = JSON.parse(await cli(['--json', 'merchant', 'create', '--name', 'Bench'], env)) as {
      merchant_id: string;
      transfer_api_key: string;
      source: { api_key: string; pin: string; tokenization_token: string };
    };
    await cli(['merchant', 'fund', '--merchant', merchant.merchant_id, '--amount', '50000000.00'], env);
    const headers = { 'content-type': 'application/json', 'api-key': merchant.transfer_api_key };
    let next = 1;
    const ids: string[] = [];
    const transferRequest = {
      method: 'POST' as const,
      path: '/api/transfer',
      headers,
      setupRequest: (request: autocannon.Request) => {
        const id = String(next++);
        ids.push(id);
        return { ...request, body: TRANSFER_BODY(id) };
      },
    };
    await autocannon({ url: base, connections: CONNECTIONS, duration: WARMUP_S, requests: [transferRequest] });
    const execute = await load(`${label}: POST /api/transfer`, { url: base, requests: [transferRequest] });
    measures.push(execute);
    await drain(label, env, execute.total - execute.non2xx - execute.errors);
    if (HUNG_WEBHOOK) {
      const hung = await hungReceiver();
      try {
        const created = await fetch(`${base}/api/v2/webhooks`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ url: `http://127.0.0.1:${hung.port}/hook` }),
        });
        if (created.status !== 200) throw new Error(`creating the hung webhook endpoint: ${created.status} ${await created.text()}`);
        const withHung = await load(`${label}: POST /api/transfer, hung webhook endpoint`, { url: base, requests: [transferRequest] });
        measures.push(withHung);
        process.stdout.write(
          `${label}: execute with a hung webhook endpoint ${withHung.rps}/s vs ${execute.rps}/s without (${((withHung.rps / execute.rps) * 100).toFixed(1)}%)\n`,
        );
        await drain(`${label} (hung webhook)`, env, withHung.total - withHung.non2xx - withHung.errors);
      } finally {
        hung.close();
      }
    }
    let read = 0;
    measures.push(
      await load(`${label}: GET /api/status/:id`, {
        url: base,
        requests: [
          { method: 'GET', headers, setupRequest: (request: autocannon.Request) => ({ ...request, path: `/api/status/${ids[read++ % ids.length]}` }) },
        ],
      }),
    );
    {
      const charge = await load(`${label}: tokenize + charge (pairs/s)`, { url: base, requests: chargeRequests(merchant.source) });
      measures.push({ ...charge, rps: Math.round(charge.rps / 2) });
    }
    measures.push(...(await lifecycleMeasures(label, base, env, merchant.source)));
    if (SOAK_S > 0) await soak(label, base, child.pid!, merchant.source);
    const rss = await fetch(`${base}/healthz`).then(() => fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'));
    const rssKb = /VmRSS:\s+(\d+)/.exec(rss)?.[1];
    process.stdout.write(`${label}: server RSS after load ${rssKb} kB\n`);
  } finally {
    watched = null;
    await Promise.all([child, ...workers].map(stop));
  }
  const verify = await cli(['ledger', 'verify'], env).catch((error: Error) => `FAILED ${error.message}`);
  process.stdout.write(`${label}: ${verify.trim()}\n`);
  for (const m of measures) {
    process.stdout.write(
      `${m.name.padEnd(44)} ${String(m.rps).padStart(7)}/s  p50 ${m.p50_ms} ms  p99 ${m.p99_ms} ms  max ${m.max_ms} ms  ` +
        `non-2xx ${m.non2xx}  errors ${m.errors}  ${((m.rps / bareRps) * 100).toFixed(1)}% of bare${m.cpu === null ? '' : `  ${cpuText(m.cpu)}`}\n`,
    );
  }
  return measures;
}

/**
 * What this host charges for a system call and for plain computation, so
 * runs on different hosts (or hours) can be told apart: the bare route is
 * mostly system calls (read, write, epoll) and Payrail's routes mostly
 * computation, so a host with costly system calls slows the ceiling more
 * than the routes and raises every ratio.
 */
function hostFacts(): string {
  const CALLS = 100_000;
  const fd = fs.openSync(os.devNull, 'r');
  let startedNs = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) fs.fstatSync(fd);
  const callNs = Number(process.hrtime.bigint() - startedNs) / CALLS;
  fs.closeSync(fd);
  const LOOPS = 100_000_000;
  let sink = 0;
  startedNs = process.hrtime.bigint();
  for (let i = 0; i < LOOPS; i++) sink += i % 7;
  const loopMs = Number(process.hrtime.bigint() - startedNs) / 1e6;
  // The sum is checked so that the compiler cannot drop the loop as unused.
  if (sink !== 299_999_995) throw new Error(`host facts: the loop summed ${sink}`);
  return `fstat() from JavaScript ${Math.round(callNs)} ns, a loop of 10^8 additions ${Math.round(loopMs)} ms`;
}

async function main(): Promise<void> {
  // Figures differ between Node lines (Payrail's routes gain more from Node 24 than the bare route), so the header names it.
  process.stdout.write(`payrail bench: ${os.cpus().length} cores, ${CONNECTIONS} connections, ${DURATION_S} s per measure, Node ${process.version}\n`);
  process.stdout.write(`host: ${hostFacts()}\n`);
  const bare = await startProcess(['--import', 'tsx', path.join(ROOT, 'bench', 'bare-server.ts')], {}, '/bare');
  const bareBody = TRANSFER_BODY('1');
  let bareMeasure: Measure;
  try {
    const request = { method: 'POST' as const, path: '/bare', headers: { 'content-type': 'application/json' }, body: bareBody };
    await autocannon({ url: `http://127.0.0.1:${bare.port}`, connections: CONNECTIONS, duration: WARMUP_S, requests: [request] });
    watched = { server: bare.child.pid!, workers: [], postgres: false };
    bareMeasure = await load('bare Fastify route', { url: `http://127.0.0.1:${bare.port}`, requests: [request] });
  } finally {
    watched = null;
    await stop(bare.child);
  }
  process.stdout.write(
    `bare Fastify route (ceiling): ${bareMeasure.rps}/s  p99 ${bareMeasure.p99_ms} ms${bareMeasure.cpu === null ? '' : `  ${cpuText(bareMeasure.cpu)}`}\n`,
  );

  if (process.env.BENCH_SKIP_SQLITE !== '1') {
    const sqliteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrail-bench-'));
    // An empty DATABASE_URL selects the embedded store even when the caller set one for the PostgreSQL half.
    await benchStore('sqlite', { PAYRAIL_DATA_DIR: sqliteDir, DATABASE_URL: '' }, bareMeasure.rps);
    fs.rmSync(sqliteDir, { recursive: true, force: true });
  }

  const databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl !== undefined && databaseUrl !== '' && process.env.BENCH_SKIP_POSTGRES !== '1') {
    const schema = `bench_${Date.now()}`;
    const admin = postgres(databaseUrl, { max: 1, onnotice: () => undefined });
    await admin.unsafe(`CREATE SCHEMA ${schema}`);
    const url = `${databaseUrl}${databaseUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const pgDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrail-bench-'));
    try {
      await benchStore('postgres', { DATABASE_URL: url, PAYRAIL_DATA_DIR: pgDir }, bareMeasure.rps);
    } finally {
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
      fs.rmSync(pgDir, { recursive: true, force: true });
    }
  }
}

await main();
