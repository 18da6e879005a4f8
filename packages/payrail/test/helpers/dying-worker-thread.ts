// A worker-thread entry that starts like thread-main.ts and then dies at
// once, for the restart test of src/worker/inline-thread.ts. Each start is
// counted in the first cell of the shared buffer the launcher hands over.
import { parentPort, workerData } from 'node:worker_threads';
import type { ThreadData, ThreadMessage } from '../../src/worker/inline-thread.ts';

const data = workerData as ThreadData;
Atomics.add(new Int32Array(data.storeThreadSignal), 0, 1);
parentPort!.on('message', (message: ThreadMessage) => {
  // A stop that arrives before the exit below is answered, as thread-main.ts does.
  if (message.kind === 'stop') parentPort!.postMessage({ kind: 'stopped' } satisfies ThreadMessage);
});
parentPort!.postMessage({ kind: 'started' } satisfies ThreadMessage);
setImmediate(() => process.exit(3));
