// Browser tests: a real `payrail serve` process on a free port, and Debian's
// Chromium driven by playwright-core. The server is ready when it logs
// "payrail listening", so nothing waits on a timer.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { BIN } from './cli.ts';
import { freePort } from './server.ts';
import { testConfigHome } from './stores.ts';

export const CHROMIUM_PATH = process.env.PAYRAIL_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = path.resolve(import.meta.dirname, '../../.artifacts/screenshots');

/** Bounded so a server that never starts fails the test instead of hanging it. */
const SERVER_START_TIMEOUT_MS = 60_000;

export interface RunningServer {
  readonly url: string;
  /** Everything the server printed, for diagnosis and for checking that no secret was logged. */
  readonly output: () => string;
  stop(): Promise<void>;
  /** Ends the process at once (SIGKILL): no shutdown work runs, as in a crash. */
  kill(): Promise<void>;
}

export async function startServer(env: Record<string, string>): Promise<RunningServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      XDG_CONFIG_HOME: testConfigHome(),
      HOST: '127.0.0.1',
      PORT: String(port),
      PAYRAIL_PUBLIC_URL: url,
      PAYRAIL_SANDBOX_DELAY_MS: '0',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`payrail serve did not start:\n${output}`)), SERVER_START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('"msg":"payrail listening"')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`payrail serve exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) throw new Error(`Chromium not found at ${CHROMIUM_PATH}; install it with apt-get install -y chromium`);
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export function screenshotPath(name: string): string {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return path.join(SCREENSHOT_DIR, `${name}.png`);
}
