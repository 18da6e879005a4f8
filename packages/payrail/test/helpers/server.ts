// Spawns `payrail serve` as a real process on a free port, for tests that
// need a real socket, a real restart or a real crash.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { BIN } from './cli.ts';
import { testConfigHome } from './stores.ts';

export async function freePort(): Promise<number> {
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

export interface RunningServer {
  readonly child: ChildProcess;
  readonly port: number;
  readonly url: string;
  stdout(): string;
  stderr(): string;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: no chance to clean up. */
  kill(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;

export async function startServer(env: Record<string, string>): Promise<RunningServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', XDG_CONFIG_HOME: testConfigHome(), LOG_LEVEL: 'info', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`payrail serve exited ${child.exitCode}: ${err}${out}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok && out.includes('payrail listening')) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`payrail serve did not start: ${err}${out}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    child,
    port,
    url,
    stdout: () => out,
    stderr: () => err,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
