// @ts-check
// Starts a throwaway Payrail sandbox for the examples and the SDK's
// integration tests: `payrail serve` on a free loopback port with a fresh
// data directory and immediate sandbox scenarios, plus a merchant created and
// funded through the operator CLI, exactly as an operator would.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const BIN = path.resolve(import.meta.dirname, '..', 'packages', 'payrail', 'bin', 'payrail.js');
/** A start or a CLI command taking longer than this has failed. */
const STEP_TIMEOUT_MS = 60_000;
/** How often a starting server is asked whether it answers yet. */
const START_POLL_MS = 50;

/** @returns {Promise<number>} */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs `payrail --json ...` and returns its parsed output.
 * @param {string[]} args
 * @param {Record<string, string>} env
 * @returns {Promise<any>}
 */
export function payrailCli(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, '--json', ...args], { env: { ...baseEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), STEP_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`payrail ${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

function baseEnv() {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn' };
}

/**
 * @typedef {object} Sandbox
 * @property {string} url Base URL of both APIs.
 * @property {Record<string, string>} env What the examples read: PAYRAIL_URL, PAYRAIL_API_KEY, ...
 * @property {{ merchant_id: string, transfer_api_key: string, source: { id: string, api_key: string, pin: string, tokenization_token: string } }} merchant
 * @property {(args: string[]) => Promise<any>} cli Runs an operator command on this sandbox's store.
 * @property {() => Promise<void>} stop Stops the server and removes its data.
 */

/**
 * @param {{ fund?: string }} [options] Amount in dollars to fund the merchant with (default 10000.00).
 * @returns {Promise<Sandbox>}
 */
export async function startSandbox(options = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrail-sandbox-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const storeEnv = { PAYRAIL_DATA_DIR: dataDir };
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...baseEnv(), ...storeEnv, PORT: String(port), HOST: '127.0.0.1', PAYRAIL_SANDBOX_DELAY_MS: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  /** @type {Promise<number | null>} */
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`payrail serve exited ${child.exitCode}: ${stderr}`);
      const ready = await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) break;
      if (Date.now() > deadline) throw new Error(`payrail serve did not answer within ${STEP_TIMEOUT_MS} ms: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, START_POLL_MS));
    }
    const cli = (/** @type {string[]} */ args) => payrailCli(args, storeEnv);
    const merchant = await cli(['merchant', 'create', '--name', 'Example merchant']);
    await cli(['merchant', 'fund', '--merchant', merchant.merchant_id, '--amount', options.fund ?? '10000.00']);
    const env = {
      PAYRAIL_URL: url,
      PAYRAIL_API_KEY: merchant.transfer_api_key,
      PAYRAIL_SOURCE_KEY: merchant.source.api_key,
      PAYRAIL_SOURCE_PIN: merchant.source.pin,
      PAYRAIL_TOKENIZATION_TOKEN: merchant.source.tokenization_token,
    };
    return { url, env, merchant, cli, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
