// A worker process for the ACH crash test (ach/ach-crash.test.ts): the real
// service on the store of PAYRAIL_DATA_DIR (or DATABASE_URL), with a manual
// clock starting at PAYRAIL_TEST_CLOCK_MS. Each round runs the worker's ACH
// lifecycle job until it finds nothing due, then moves the merchant's
// sandbox ACH clock one business day (the advance flow, with its own sweep
// of the merchant's checks), then moves its own clock past every poll
// interval and lease, until no entry is watched any more. It prints its
// clock at the start of each round, so a restarted worker can start past
// the leases of a killed one, and pauses a little between rounds, so a kill
// lands in the middle of the run.
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../src/config.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { advanceSandboxAchClock } from '../../src/flows/ach/sandbox-clock.ts';
import { createLogger } from '../../src/log.ts';
import { createService } from '../../src/runtime.ts';
import { achJobs } from '../../src/worker/ach-jobs.ts';

const ROUNDS_MAX = 60;
const ROUND_STEP_MS = 2 * 60 * 60_000;
const PAUSE_MS = 15;

const env = process.env;
const clock = new ManualClock(Number(env.PAYRAIL_TEST_CLOCK_MS));
const merchantId = env.PAYRAIL_TEST_MERCHANT ?? '';
const settings = Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith('PAYRAIL_') && !name.startsWith('PAYRAIL_TEST_')));
const config = loadConfig({ ...settings, DATABASE_URL: env.DATABASE_URL ?? '', PAYRAIL_WORKER: 'off', LOG_LEVEL: 'warn' });
const service = await createService(config, { clock, log: createLogger('warn') });
const lifecycle = achJobs(service).find((job) => job.name === 'ach.lifecycle')!;
process.stdout.write('READY\n');
let rounds = 0;
for (; rounds < ROUNDS_MAX; rounds++) {
  process.stdout.write(`CLOCK ${clock.nowMs()}\n`);
  const open = await service.db.read((tx) => tx.get<{ n: number | string }>('SELECT count(*) AS n FROM ach_entries WHERE next_check_at_ms IS NOT NULL'));
  if (Number(open?.n ?? 0) === 0) break;
  while ((await lifecycle.runOnce()) > 0);
  process.stdout.write(`SWEPT ${rounds}\n`);
  await advanceSandboxAchClock(service, { merchantId, businessDays: 1 });
  clock.advance(ROUND_STEP_MS);
  await sleep(PAUSE_MS);
}
process.stdout.write(`ROUNDS ${rounds}\nDONE\n`);
await service.db.close();
