// A worker process for the payout crash test (transfers/payout-crash.test.ts):
// the real service on the store in PAYRAIL_DATA_DIR (or DATABASE_URL), with a
// manual clock starting at PAYRAIL_TEST_CLOCK_MS (past the killed worker's
// claim leases), advancing transfers until every one is final or the rounds
// run out. Between rounds its clock moves a minute, past any backoff or poll
// interval, as real time would. Settings of the payout connectors and the
// corridors file come from the environment as for `payrail worker`.
import { loadConfig } from '../../src/config.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { advanceDueTransfers } from '../../src/flows/transfers/advance.ts';
import { createLogger } from '../../src/log.ts';
import { createService } from '../../src/runtime.ts';

const ROUNDS_MAX = 50;
const ROUND_STEP_MS = 61_000;

const env = process.env;
const clock = new ManualClock(Number(env.PAYRAIL_TEST_CLOCK_MS));
const settings = Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith('PAYRAIL_') && name !== 'PAYRAIL_TEST_CLOCK_MS'));
const config = loadConfig({ ...settings, DATABASE_URL: env.DATABASE_URL ?? '', PAYRAIL_WORKER: 'off', LOG_LEVEL: 'warn' });
const service = await createService(config, { clock, log: createLogger('warn') });
let rounds = 0;
for (; rounds < ROUNDS_MAX; rounds++) {
  const open = await service.db.read((tx) => tx.get<{ n: number }>('SELECT count(*) AS n FROM transfers WHERE final = 0'));
  if (Number(open?.n ?? 0) === 0) break;
  while ((await advanceDueTransfers(service)).claimed > 0);
  clock.advance(ROUND_STEP_MS);
}
process.stdout.write(`ROUNDS ${rounds}\nDONE\n`);
await service.db.close();
