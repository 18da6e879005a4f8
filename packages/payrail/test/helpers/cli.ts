// Runs the real `payrail` command in a child process, as an operator would.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { storeLocation } from '../../src/store/location.ts';
import { testConfigHome } from './stores.ts';

export const BIN = path.resolve(import.meta.dirname, '../../bin/payrail.js');

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Bounded so a hung command fails the test instead of hanging it. */
const CLI_TIMEOUT_MS = 60_000;

export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', XDG_CONFIG_HOME: testConfigHome(), LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`payrail ${args.join(' ')} timed out`));
    }, CLI_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

export async function runCliJson<T = Record<string, unknown>>(args: string[], env: Record<string, string>): Promise<T> {
  const result = await runCli(['--json', ...args], env);
  if (result.code !== 0) throw new Error(`payrail ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** How a command's errors name the store of `env` (PAYRAIL_DATA_DIR or DATABASE_URL). */
export function storeNamed(env: Record<string, string>): string {
  return storeLocation({ databaseUrl: env.DATABASE_URL ?? null, dataDir: env.PAYRAIL_DATA_DIR ?? 'data' });
}
