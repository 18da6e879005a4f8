// A worker process for the re-seal crash test (security/key-reseal-crash.test.ts):
// the real service on the store of PAYRAIL_DATA_DIR (or DATABASE_URL) runs
// the worker's re-seal job round after round until it has nothing left,
// printing `BATCH <n>` after each round and pausing a little between them,
// so a kill lands in the middle of the run.
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { createService } from '../../src/runtime.ts';
import { cardKeyResealJob } from '../../src/worker/security-jobs.ts';

const PAUSE_MS = 10;
const ROUNDS_MAX = 10_000;

const env = process.env;
const settings = Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith('PAYRAIL_') && !name.startsWith('PAYRAIL_TEST_')));
const config = loadConfig({ ...settings, DATABASE_URL: env.DATABASE_URL ?? '', PAYRAIL_WORKER: 'off', LOG_LEVEL: 'warn' });
const service = await createService(config, { log: createLogger('warn') });
const job = cardKeyResealJob(service);
process.stdout.write('READY\n');
let rounds = 0;
for (; rounds < ROUNDS_MAX; rounds++) {
  const handled = await job.runOnce();
  if (handled === 0) break;
  process.stdout.write(`BATCH ${rounds}\n`);
  await sleep(PAUSE_MS);
}
process.stdout.write(`ROUNDS ${rounds}\nDONE\n`);
await service.db.close();
