// The worker thread of `payrail serve` (inline-thread.ts starts it): the same
// jobs and webhook deliveries as `payrail worker`, on a thread of their own
// with a store connection of their own, so the worker's batches run beside
// the HTTP server's requests instead of between them. It answers the
// launcher's `stop` by stopping both loops after their current batch,
// closing its store and flushing its log, then says `stopped`.
import { parentPort, workerData } from 'node:worker_threads';
import { secretsBoxedFromThread } from '../config/thread-clone.ts';
import { createService } from '../runtime.ts';
import { createJobs } from './jobs.ts';
import { createWebhookWorker } from './webhook-worker.ts';
import { Worker } from './worker.ts';
import type { ThreadData, ThreadMessage } from './inline-thread.ts';

const port = parentPort;
if (port === null) throw new Error('thread-main.ts runs as a worker thread (inline-thread.ts)');
const data = workerData as ThreadData;
const service = await createService(secretsBoxedFromThread(data.config), { storeThreadSignal: data.storeThreadSignal });
const log = service.log.child({ component: 'worker' });
const worker = new Worker(createJobs(service), log);
const webhooks = createWebhookWorker(service);
worker.start();
webhooks.start();

port.on('message', (message: ThreadMessage) => {
  if (message.kind !== 'stop') return;
  void (async () => {
    await Promise.all([worker.stop(), webhooks.stop()]);
    await service.db.close();
    await new Promise<void>((resolve) => service.log.flush(() => resolve()));
    port.postMessage({ kind: 'stopped' } satisfies ThreadMessage);
    port.close();
  })();
});
port.postMessage({ kind: 'started' } satisfies ThreadMessage);
