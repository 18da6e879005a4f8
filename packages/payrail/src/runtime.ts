// Process-level assembly shared by `payrail serve`, `payrail worker` and the
// CLI's store commands: configuration -> store (migrated) -> service.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { systemClock, type Clock } from './domain/clock.ts';
import { createLogger } from './log.ts';
import type { Service } from './service.ts';
import { openMigratedDb } from './store/open.ts';

export interface ServiceOptions {
  readonly clock?: Clock;
  readonly log?: Logger;
  readonly pgSchema?: string;
}

export async function createService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const log = options.log ?? createLogger(config.logLevel);
  const db = await openMigratedDb(config, options.pgSchema !== undefined ? { pgSchema: options.pgSchema } : {});
  return { config, db, clock: options.clock ?? systemClock, log };
}
