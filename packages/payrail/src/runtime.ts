// Process-level assembly shared by `payrail serve`, `payrail worker` and the
// CLI's store commands: configuration -> store (migrated) -> providers -> service.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { systemClock, type Clock } from './domain/clock.ts';
import { createLogger } from './log.ts';
import { createProviders } from './providers/index.ts';
import type { Service } from './service.ts';
import type { Db } from './store/db.ts';
import { openMigratedDb } from './store/open.ts';

export interface ServiceOptions {
  readonly clock?: Clock;
  readonly log?: Logger;
  /** Use this already-open store instead of opening one from configuration (tests). */
  readonly db?: Db;
}

export async function createService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const log = options.log ?? createLogger(config.logLevel);
  const db = options.db ?? (await openMigratedDb(config));
  const clock = options.clock ?? systemClock;
  const providers = await createProviders({ config, db, clock, log });
  return { config, db, clock, log, providers };
}
