#!/usr/bin/env node
// @ts-check
// CI's packaging check (called from .ci/run): both packages as a user gets
// them from the registry. It packs `payrail` and `@payrail/client` (prepack
// builds them), checks each tarball holds only built JavaScript, type
// declarations, assets, README and LICENSE, installs both tarballs into a
// scratch project in a temporary directory outside the repository, starts a
// sandbox from the installed `payrail` bin on a free loopback port with a
// temporary data directory, runs a small SDK script against it (balance and
// a transfer to its final state), then stops the server and removes it all.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';

const ROOT = path.resolve(import.meta.dirname, '..');
const PACKAGES = [
  { dir: 'packages/payrail', name: 'payrail', allowed: /^package\/(package\.json|README\.md|LICENSE|bin\/[^/]+\.js|config\/[^/]+\.json|dist\/.+)$/ },
  { dir: 'packages/client', name: '@payrail/client', allowed: /^package\/(package\.json|README\.md|LICENSE|dist\/[^/]+\.(js|d\.ts))$/ },
];
/** Never in a tarball: sources, tests, source maps, build configuration. */
const FORBIDDEN = /(^package\/(src|test|bench|scripts)\/)|\.map$|tsconfig|\.ts$(?<!\.d\.ts)/;
/** The install scripts a project installing payrail allows: the driver of the embedded store is compiled at install. */
const CONSUMER_ALLOW_SCRIPTS = { 'better-sqlite3': true };

/** Bounds on each slow step: an install that builds better-sqlite3, a server start, the SDK script. */
const INSTALL_TIMEOUT_MS = 15 * 60_000;
const START_TIMEOUT_MS = 60_000;
const SCRIPT_TIMEOUT_MS = 120_000;

/** The SDK script the scratch project runs: what a user's first program does. */
const SMOKE_SCRIPT = `import { Payrail } from '@payrail/client';
const payrail = new Payrail({ base_url: process.env.PAYRAIL_URL, api_key: process.env.PAYRAIL_API_KEY });
const balance = await payrail.balance();
const sent = await payrail.send(
  { sender_phone: '+14155550100', receiver_phone: '+254712345678', amount: '25.00', service: '1001', receiver_country: 'KE', receiver_currency: 'KES' },
  { timeout_ms: 60000 },
);
const after = await payrail.balance();
console.log(JSON.stringify({ balance_cents: balance.balance_cents, outcome: sent.outcome, id: sent.id, after_cents: after.balance_cents }));
if (sent.outcome !== 'succeeded' || balance.balance_cents - after.balance_cents !== 2500) process.exit(1);
`;

/** @param {string} message */
function step(message) {
  console.log(`pack-smoke: ${message}`);
}

/** @returns {Promise<number>} */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/**
 * @param {string} tarball
 * @param {{ name: string, allowed: RegExp }} pkg
 */
function checkContents(tarball, pkg) {
  const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
  const stray = files.filter((file) => !pkg.allowed.test(file) || FORBIDDEN.test(file));
  if (stray.length > 0) throw new Error(`${pkg.name} tarball holds files it should not: ${stray.join(', ')}`);
  for (const needed of ['package/README.md', 'package/LICENSE', 'package/package.json']) {
    if (!files.includes(needed)) throw new Error(`${pkg.name} tarball lacks ${needed}`);
  }
  const manifest = JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }));
  const types = manifest.exports?.['.']?.types;
  const main = manifest.exports?.['.']?.default;
  for (const entry of [types, main]) {
    if (typeof entry !== 'string' || !files.includes(`package/${entry.replace(/^\.\//, '')}`)) {
      throw new Error(`${pkg.name}: exports names ${entry}, which the tarball lacks`);
    }
  }
  step(`${pkg.name}: ${files.length} files, built JS and types only (exports ${main}, types ${types})`);
}

/**
 * Starts the installed payrail bin; resolves with its URL and printed output once it answers.
 * @param {string} app
 * @param {string} dataDir
 */
async function startInstalledServer(app, dataDir) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(path.join(app, 'node_modules', '.bin', 'payrail'), ['serve'], {
    cwd: app,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      PAYRAIL_DATA_DIR: dataDir,
      PAYRAIL_SANDBOX_DELAY_MS: '0',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the installed payrail serve exited ${child.exitCode}:\n${output}`);
    const ready = await fetch(`${url}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready && /transfer API key/.test(output)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the installed payrail serve did not answer within ${START_TIMEOUT_MS} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const stop = async () => {
    if (child.exitCode !== null) return child.exitCode;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    return exited;
  };
  return { url, output: () => output, stop };
}

/**
 * @param {string} app
 * @param {Record<string, string>} env
 */
function runSmokeScript(app, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['smoke.mjs'], { cwd: app, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), SCRIPT_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout.trim());
      else reject(new Error(`the SDK script exited ${code}: ${stdout}`));
    });
  });
}

async function main() {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'payrail-pack-smoke-'));
  if (scratch.startsWith(`${ROOT}${path.sep}`)) throw new Error(`the scratch directory ${scratch} must be outside the repository`);
  /** @type {{ url: string, stop(): Promise<unknown>, output(): string } | null} */
  let server = null;
  try {
    const tarballs = [];
    for (const pkg of PACKAGES) {
      step(`packing ${pkg.name}`);
      const [packed] = JSON.parse(
        execFileSync('npm', ['pack', '--json', '--pack-destination', scratch], {
          cwd: path.join(ROOT, pkg.dir),
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'inherit'],
        }),
      );
      const tarball = path.join(scratch, packed.filename);
      checkContents(tarball, pkg);
      tarballs.push(tarball);
    }

    const app = path.join(scratch, 'app');
    fs.mkdirSync(app);
    // A project that installs payrail must let the embedded store's driver run its install script
    // (npm's allowScripts; strict here, so a dependency with an unreviewed script fails the smoke).
    const manifest = { name: 'payrail-smoke', private: true, type: 'module', allowScripts: CONSUMER_ALLOW_SCRIPTS };
    fs.writeFileSync(path.join(app, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    fs.writeFileSync(path.join(app, 'smoke.mjs'), SMOKE_SCRIPT);
    step(`installing both tarballs into ${app}`);
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--strict-allow-scripts', ...tarballs], {
      cwd: app,
      stdio: 'inherit',
      timeout: INSTALL_TIMEOUT_MS,
    });

    const version = execFileSync(path.join(app, 'node_modules', '.bin', 'payrail'), ['--version'], { cwd: app, encoding: 'utf8' }).trim();
    step(`installed payrail --version: ${version}`);
    const dataDir = path.join(scratch, 'data');
    server = await startInstalledServer(app, dataDir);
    const apiKey = /transfer API key +(\S+)/.exec(server.output())?.[1];
    if (apiKey === undefined) throw new Error(`no demo credentials in the output of payrail serve:\n${server.output()}`);
    step(`sandbox from the installed bin at ${server.url}; running the SDK script`);
    const result = await runSmokeScript(app, { PAYRAIL_URL: server.url, PAYRAIL_API_KEY: apiKey });
    step(`SDK script: ${result}`);
    const code = await server.stop();
    server = null;
    if (code !== 0) throw new Error(`payrail serve exited ${code} on SIGTERM`);
    step('ok');
  } finally {
    if (server !== null) {
      console.error(server.output());
      await server.stop();
    }
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(`pack-smoke: FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
