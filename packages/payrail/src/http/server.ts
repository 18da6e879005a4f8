// `payrail serve`: the HTTP server plus, by default, the worker in the same
// process, on a thread of its own (worker/inline-thread.ts). SIGTERM/SIGINT
// finish in-flight requests, stop the worker after its current batch, and
// close the store.
import fs from 'node:fs';
import type { Config } from '../config.ts';
import { demoBanner, seedDemoMerchant } from '../flows/merchants/seed.ts';
import { createService, newStoreThreadSignal } from '../runtime.ts';
import { type InlineWorkerThread, startInlineWorkerThread } from '../worker/inline-thread.ts';
import { storeEngine } from '../flows/operations/health.ts';
import { buildApp } from './app.ts';

export async function serve(config: Config): Promise<{ close(): Promise<void>; port: number }> {
  // Shared by the server's store connection and its worker thread's (store/commit-signal.ts).
  const storeThreadSignal = config.worker === 'inline' ? newStoreThreadSignal() : null;
  const service = await createService(config, storeThreadSignal === null ? {} : { storeThreadSignal });
  const seeded = await seedDemoMerchant(service);
  const https =
    config.tlsCertFile !== null && config.tlsKeyFile !== null ? { cert: fs.readFileSync(config.tlsCertFile), key: fs.readFileSync(config.tlsKeyFile) } : null;
  const app = await buildApp(service, { https });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    // A port in use (EADDRINUSE): nothing started yet; release the store so the command ends with its one-line message.
    await app.close();
    await service.db.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  // Its jobs and webhook deliveries (each in a loop of its own: a slow endpoint never holds up the jobs) on a thread of their own.
  let worker: InlineWorkerThread | null = null;
  try {
    if (storeThreadSignal !== null) worker = await startInlineWorkerThread(config, storeThreadSignal, service.log.child({ component: 'worker' }));
  } catch (error) {
    await app.close();
    await service.db.close();
    throw error;
  }
  service.log.info({ port, environment: config.environment, store: storeEngine(service), worker: config.worker }, 'payrail listening');
  if (seeded !== null) process.stdout.write(`${demoBanner(seeded, config.publicUrl)}\n`);

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      service.log.info('shutting down: finishing in-flight requests');
      await app.close();
      await worker?.stop();
      await service.db.close();
      service.log.flush?.();
    })();
    return closing;
  };
  return { close, port };
}
