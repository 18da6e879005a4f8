// Runs `payrail` command lines: in this process through the command's own
// entry point, or as the real command in a child process.
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

/**
 * `serve` and `worker` run until signalled and own process-wide state (signal
 * handlers, the inline worker thread): they always run as a process of their own.
 */
const PROCESS_ONLY_COMMANDS = new Set(['serve', 'worker']);

/**
 * Runs a `payrail` command line. Commands run in this process through the
 * same entry point as the shell's (`main` with its own environment and output
 * streams), which costs milliseconds instead of a Node start-up per command;
 * `serve` and `worker` run as processes (runCliProcess).
 */
export async function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  const command = args.find((arg) => !arg.startsWith('-'));
  if (command !== undefined && PROCESS_ONLY_COMMANDS.has(command)) return runCliProcess(args, env);
  const { main } = await import('../../src/cli/main.ts');
  let stdout = '';
  let stderr = '';
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`payrail ${args.join(' ')} timed out`)), CLI_TIMEOUT_MS);
  });
  try {
    const code = await Promise.race([
      main(['node', 'payrail', ...args], {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', XDG_CONFIG_HOME: testConfigHome(), LOG_LEVEL: 'warn', ...env },
        stdout: (text) => {
          stdout += text;
        },
        stderr: (text) => {
          stderr += text;
        },
      }),
      timeout,
    ]);
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

/** Runs the real `payrail` command (bin/payrail.js, the built dist/) in a child process, as an operator would. */
export function runCliProcess(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        XDG_CONFIG_HOME: testConfigHome(),
        LOG_LEVEL: 'warn',
        ...env,
      },
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
