// A worker process for the exactly-once schedule test (stored-schedules-crash.test.ts):
// the real service on the store named by DATABASE_URL, with a manual clock set
// to PAYRAIL_TEST_CLOCK_MS, running the schedule and pending-charge jobs until
// no work is left, then exiting. Its card processor announces each
// authorization on stdout ("AUTH <reference>") and takes PROCESSOR_DELAY_MS
// to answer, so the test can SIGKILL it in the middle of a run. The card
// processor is the sandbox's unless PAYRAIL_CARD_PROCESSOR and its settings
// are given (the Authorize.net crash test restarts its worker here).
import { loadConfig } from '../../src/config.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { recoveryDepsOf, resolveDueCharges } from '../../src/flows/payin/charge-recovery.ts';
import { runDueSchedules } from '../../src/flows/vault/schedule-runs.ts';
import { createLogger } from '../../src/log.ts';
import type { CardProcessor } from '../../src/providers/card-processor.ts';
import { createService } from '../../src/runtime.ts';

const env = process.env;
const clock = new ManualClock(Number(env.PAYRAIL_TEST_CLOCK_MS));
const delayMs = Number(env.PROCESSOR_DELAY_MS ?? '0');
const batch = Number(env.SCHEDULE_BATCH ?? '5');
const processorSettings = Object.entries(env).filter(([name]) => name === 'PAYRAIL_CARD_PROCESSOR' || name.startsWith('PAYRAIL_AUTHORIZE_NET_'));
const config = loadConfig({
  ...Object.fromEntries(processorSettings),
  DATABASE_URL: env.DATABASE_URL ?? '',
  PAYRAIL_DATA_DIR: env.PAYRAIL_DATA_DIR ?? '',
  ...(env.PAYRAIL_CARD_KEY_FILE === undefined ? {} : { PAYRAIL_CARD_KEY_FILE: env.PAYRAIL_CARD_KEY_FILE }),
  PAYRAIL_SANDBOX_DELAY_MS: '0',
  PAYRAIL_WORKER: 'off',
  LOG_LEVEL: 'warn',
});
const service = await createService(config, { clock, log: createLogger('warn') });
const inner = service.providers.cardProcessor;
// Everything else (name, deadline, poll, capture...) is the configured processor's own.
const announcing: CardProcessor = Object.assign(Object.create(inner) as CardProcessor, {
  async authorize(request: Parameters<CardProcessor['authorize']>[0]) {
    process.stdout.write(`AUTH ${request.reference}\n`);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return inner.authorize(request);
  },
});
const deps = { ...recoveryDepsOf(service), processor: announcing };
for (let round = 0; round < 1000; round++) {
  const done = (await runDueSchedules(deps, batch)) + (await resolveDueCharges(deps));
  if (done === 0) break;
}
process.stdout.write('DONE\n');
await service.db.close();
