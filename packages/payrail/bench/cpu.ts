// CPU time per request of each process a measure keeps busy, read from
// /proc (Linux) before and after the measure: the server (with its worker
// thread, on SQLite), the `payrail worker` processes, PostgreSQL's server
// processes, and the load generator (this process). On a machine that runs
// all of them on the same cores, what a request costs in CPU, summed over
// them, is what bounds the rate: the figures say where that budget goes.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/** The kernel's clock ticks per second, in which /proc reports CPU time. */
const TICKS_PER_S = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

export interface Watched {
  /** The server process measured. */
  readonly server: number;
  readonly workers: readonly number[];
  /** Whether PostgreSQL's server processes on this machine count (a PostgreSQL store). */
  readonly postgres: boolean;
}

export interface CpuPerRequest {
  readonly serverUs: number;
  readonly workersUs: number | null;
  readonly postgresUs: number | null;
  readonly loadGeneratorUs: number;
}

/** User + system CPU of a process in microseconds; 0 once it is gone. */
function processCpuUs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name, which may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_S;
  } catch {
    return 0;
  }
}

function postgresCpuUs(): number {
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') total += processCpuUs(Number(entry));
    } catch {
      // The process ended while the list was read.
    }
  }
  return total;
}

interface Sample {
  readonly server: number;
  readonly workers: number;
  readonly postgres: number;
  readonly self: number;
}

function sample(watched: Watched): Sample {
  const self = process.cpuUsage();
  return {
    server: processCpuUs(watched.server),
    workers: watched.workers.reduce((sum, pid) => sum + processCpuUs(pid), 0),
    postgres: watched.postgres ? postgresCpuUs() : 0,
    self: self.user + self.system,
  };
}

/** Starts measuring; the returned function takes the number of requests served meanwhile. */
export function startCpu(watched: Watched): (requests: number) => CpuPerRequest {
  const before = sample(watched);
  return (requests) => {
    const after = sample(watched);
    const per = (used: number) => Math.round(used / Math.max(1, requests));
    return {
      serverUs: per(after.server - before.server),
      workersUs: watched.workers.length === 0 ? null : per(after.workers - before.workers),
      postgresUs: watched.postgres ? per(after.postgres - before.postgres) : null,
      loadGeneratorUs: per(after.self - before.self),
    };
  };
}

export function cpuText(cpu: CpuPerRequest): string {
  const parts = [`server ${cpu.serverUs}`];
  if (cpu.workersUs !== null) parts.push(`worker ${cpu.workersUs}`);
  if (cpu.postgresUs !== null) parts.push(`PostgreSQL ${cpu.postgresUs}`);
  parts.push(`load generator ${cpu.loadGeneratorUs}`);
  return `CPU us/request: ${parts.join(', ')}`;
}
