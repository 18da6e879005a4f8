// Builds a whole service (store, providers, app, worker) for HTTP tests
// driven through app.inject(). Sandbox delay is 0 and the clock is manual,
// so every scenario is immediate and time moves only when a test says so.
import { Writable } from 'node:stream';
import { loadConfig, type Config } from '../../src/config.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { createMerchant, fundMerchant, issuingDeps, type CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { buildApp, type App } from '../../src/http/app.ts';
import { createLogger } from '../../src/log.ts';
import { createService } from '../../src/runtime.ts';
import type { Service } from '../../src/service.ts';
import { createJobs } from '../../src/worker/jobs.ts';
import { Worker } from '../../src/worker/worker.ts';
import { validateInjectedResponses } from './openapi.ts';
import { registerPanelClock } from './panel.ts';
import { createStore, type TestStore } from './stores.ts';

export interface TestApp {
  readonly store: TestStore;
  readonly service: Service;
  readonly app: App;
  readonly clock: ManualClock;
  readonly worker: Worker;
  /** Every log line written while the app ran (for no-secrets-in-logs tests). */
  readonly logLines: string[];
  newMerchant(options?: { fundCents?: number; name?: string }): Promise<CreatedMerchant>;
  close(): Promise<void>;
}

export async function createTestApp(
  kind: 'sqlite' | 'postgres',
  options: {
    env?: Record<string, string>;
    clock?: ManualClock;
    /** Check every inject()ed response against /openapi.json (default true). */
    validateResponses?: boolean;
  } = {},
): Promise<TestApp> {
  const store = await createStore(kind);
  const config: Config = loadConfig({
    PAYRAIL_DATA_DIR: store.dataDir,
    PAYRAIL_SANDBOX_DELAY_MS: '0',
    PAYRAIL_WORKER: 'off',
    LOG_LEVEL: 'info',
    ...(store.env.DATABASE_URL !== undefined ? { DATABASE_URL: store.env.DATABASE_URL } : {}),
    ...(store.env.PAYRAIL_CARD_KEY_FILE !== undefined ? { PAYRAIL_CARD_KEY_FILE: store.env.PAYRAIL_CARD_KEY_FILE } : {}),
    ...options.env,
  });
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logLines.push(chunk.toString('utf8'));
      callback();
    },
  });
  const clock = options.clock ?? new ManualClock(Date.now());
  const service = await createService(config, { db: store.db, clock, log: createLogger('info', sink) });
  const app = await buildApp(service);
  await app.ready();
  registerPanelClock(app, clock);
  if (options.validateResponses !== false) validateInjectedResponses(app);
  const worker = new Worker(createJobs(service), service.log);
  return {
    store,
    service,
    app,
    clock,
    worker,
    logLines,
    async newMerchant(merchantOptions = {}) {
      const deps = issuingDeps(service);
      const merchant = await createMerchant(deps, { name: merchantOptions.name ?? 'Test merchant' });
      if ((merchantOptions.fundCents ?? 0) > 0) {
        await fundMerchant(deps, { merchantId: merchant.merchant_id, amountCents: merchantOptions.fundCents! });
      }
      return merchant;
    },
    async close() {
      await worker.stop();
      await app.close();
      await store.dispose();
    },
  };
}
