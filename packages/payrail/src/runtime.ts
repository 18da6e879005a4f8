// Process-level assembly shared by `payrail serve`, `payrail worker` and the
// CLI's store commands: configuration -> store (migrated) -> corridors ->
// providers -> service.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { loadCorridors } from './corridors-file.ts';
import { systemClock, type Clock } from './domain/clock.ts';
import { providerKeysOf } from './domain/provider-keys.ts';
import { loadKeyRing } from './flows/card-keys/ring-loader.ts';
import { claimStoreEnvironment } from './flows/operations/store-environment.ts';
import { createLogger } from './log.ts';
import { createProviders } from './providers/index.ts';
import type { Service } from './service.ts';
import type { Db } from './store/db.ts';
import { newCommitSignalBuffer, openDb, openMigratedDb } from './store/open.ts';
import { readInstallation } from './store/installation.ts';
import { sandboxAchClocks } from './store/sandbox-ach-clocks.ts';
import { sandboxReceiverStates } from './store/sandbox-receivers.ts';

export interface ServiceOptions {
  readonly clock?: Clock;
  readonly log?: Logger;
  /**
   * Use this already-open store instead of opening one from configuration
   * (tests). Its environment is then the caller's business: it is not
   * recorded or checked against the configuration.
   */
  readonly db?: Db;
  /**
   * Given to the store when other threads of this process write it too (the
   * server and its worker thread, worker/inline-thread.ts): see
   * store/commit-signal.ts. Made by newStoreThreadSignal().
   */
  readonly storeThreadSignal?: SharedArrayBuffer;
}

/** The shared memory by which the threads of one process writing one store wake each other (store/commit-signal.ts). */
export const newStoreThreadSignal = newCommitSignalBuffer;

export async function createService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const log = options.log ?? createLogger(config.logLevel);
  const corridors = loadCorridors(config.corridorsFile);
  const db = options.db ?? (await openOwnStore(config, log, options.storeThreadSignal));
  const clock = options.clock ?? systemClock;
  const context = {
    environment: config.environment,
    publicUrl: config.publicUrl,
    sandboxDelayMs: config.sandboxDelayMs,
    clock,
    log,
    achCutoffMinuteOfDay: config.achCutoffMinuteOfDay,
  };
  const providers = await createProviders(config.providers, config.connectors, context, sandboxReceiverStates(db), corridors, sandboxAchClocks(db));
  // Recorded when the store was created or migrated (store/installation.ts); a restored copy must take a new one.
  const installation = await readInstallation(db);
  const providerKeys = providerKeysOf(installation.id, installation.legacyPkMax);
  // The card-data keys, unwrapped once here (flows/card-keys/ring-loader.ts): the hot path never asks the store or the key provider.
  await loadKeyRing({ config, db, log, clock });
  return { config, db, clock, log, corridors, providers, providerKeys };
}

/** Opens the configured store, migrated, and refuses one of the other environment (docs/api-decisions.md section 1). */
async function openOwnStore(config: Config, log: Logger, commitSignal: SharedArrayBuffer | undefined): Promise<Db> {
  const db = await openMigratedDb(config, commitSignal === undefined ? {} : { commitSignal });
  try {
    await claimStoreEnvironment({ db, log }, config.environment);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

/** Applies pending migrations to the configured store; returns how many ran. */
export async function migrateStore(config: Config): Promise<number> {
  const db = openDb(config);
  try {
    const applied = await db.migrate();
    await claimStoreEnvironment({ db }, config.environment);
    return applied;
  } finally {
    await db.close();
  }
}
