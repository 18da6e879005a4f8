// Runs the worker of `payrail serve` (PAYRAIL_WORKER=inline) on a thread of
// its own (thread-main.ts). On the server's thread, the worker's batches
// took their turn between requests: about a third of that thread during an
// execute load, while the machine's other core was mostly idle. On a thread
// they run beside the requests. The thread opens its own store connection;
// with SQLite both connections write the same file, one at a time, and wake
// each other as soon as a transaction ends (store/commit-signal.ts).
//
// A thread that dies (it should not) is logged and started again after a
// pause, so transfers keep moving; everything it was doing is in the store,
// where the new one finds it, as after a crash of `payrail worker`.
import { Worker as Thread } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { secretsUnboxedForThread } from '../config/thread-clone.ts';

/** What the launcher gives the thread (structured-cloned, so the config's secrets travel unboxed; the signal's memory is shared). */
export interface ThreadData {
  readonly config: Config;
  readonly storeThreadSignal: SharedArrayBuffer;
}

export type ThreadMessage = { readonly kind: 'started' } | { readonly kind: 'stop' } | { readonly kind: 'stopped' };

/** How long a start of the thread may take (it opens and migrates the store). */
const START_TIMEOUT_MS = 60_000;
/** Pause before a thread that died is started again. */
const RESTART_PAUSE_MS = 1_000;

export interface InlineWorkerThreadOptions {
  /** The thread's entry module (tests give one that misbehaves); thread-main by default. */
  readonly entry?: URL;
  readonly restartPauseMs?: number;
}

const FROM_SOURCES = import.meta.url.endsWith('.ts');
/** The entry beside this module, as built: .js from dist, .ts when running from the sources (tests, under tsx). */
const DEFAULT_ENTRY = new URL(`./thread-main${FROM_SOURCES ? '.ts' : '.js'}`, import.meta.url);

/**
 * From the sources, the thread registers tsx itself before loading the
 * entry: Node 20 does not run the parent's `--import tsx` for a worker
 * thread's entry, so a .ts entry would not load. tsx is a development
 * dependency, asked for only then; the built package loads plain .js.
 */
function newThread(entry: URL, workerData: ThreadData): Thread {
  if (!FROM_SOURCES) return new Thread(entry, { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Thread(bootstrap, { eval: true, workerData });
}

export interface InlineWorkerThread {
  /** Stops the worker after its current batches and waits for the thread to end. */
  stop(): Promise<void>;
}

/** Starts the thread and resolves once its worker runs; rejects if it cannot start. */
export async function startInlineWorkerThread(
  config: Config,
  storeThreadSignal: SharedArrayBuffer,
  log: Logger,
  options: InlineWorkerThreadOptions = {},
): Promise<InlineWorkerThread> {
  const entry = options.entry ?? DEFAULT_ENTRY;
  const data: ThreadData = { config: secretsUnboxedForThread(config), storeThreadSignal };
  let stopping = false;
  let current = await spawn(entry, data);
  let restartTimer: NodeJS.Timeout | null = null;

  const watch = (thread: Thread) => {
    thread.on('error', (error) => log.error({ err: error }, 'the worker thread failed'));
    thread.once('exit', (code) => {
      if (stopping || thread !== current) return;
      log.error({ exit_code: code }, 'the worker thread ended unexpectedly; starting it again');
      restartTimer = setTimeout(() => {
        restartTimer = null;
        spawn(entry, data).then(
          (next) => {
            current = next;
            if (stopping) void stopThread(next);
            else watch(next);
          },
          (error: unknown) => log.error({ err: error }, 'the worker thread could not start again'),
        );
      }, options.restartPauseMs ?? RESTART_PAUSE_MS);
    });
  };
  watch(current);

  return {
    async stop() {
      stopping = true;
      if (restartTimer !== null) clearTimeout(restartTimer);
      await stopThread(current);
    },
  };
}

function spawn(entry: URL, data: ThreadData): Promise<Thread> {
  const thread = newThread(entry, data);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void thread.terminate();
      reject(new Error(`the worker thread did not start within ${START_TIMEOUT_MS} ms`));
    }, START_TIMEOUT_MS);
    const fail = (error: unknown) => {
      clearTimeout(timer);
      reject(error);
    };
    thread.once('error', fail);
    thread.once('exit', (code) => fail(new Error(`the worker thread exited with code ${code} while starting`)));
    thread.once('message', (message: ThreadMessage) => {
      if (message.kind !== 'started') return;
      clearTimeout(timer);
      thread.removeAllListeners('exit');
      thread.removeAllListeners('error');
      // Later errors end the thread; its 'exit' is what the launcher watches.
      thread.on('error', () => undefined);
      resolve(thread);
    });
  });
}

async function stopThread(thread: Thread): Promise<void> {
  if (thread.threadId === -1) return;
  const ended = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
  thread.once('message', (message: ThreadMessage) => {
    if (message.kind === 'stopped') void thread.terminate();
  });
  thread.postMessage({ kind: 'stop' } satisfies ThreadMessage);
  await ended;
}
