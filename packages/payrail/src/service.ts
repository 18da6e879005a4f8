// The assembled service: configuration, store, clock, logger, corridor table
// and providers, built once and handed to the HTTP layer, the worker and the
// CLI.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Clock } from './domain/clock.ts';
import type { CorridorTable } from './domain/corridors.ts';
import type { ProviderKeys } from './domain/provider-keys.ts';
import type { Providers } from './providers/index.ts';
import type { Db } from './store/db.ts';

export interface Service {
  readonly config: Config;
  readonly db: Db;
  readonly clock: Clock;
  readonly log: Logger;
  readonly corridors: CorridorTable;
  readonly providers: Providers;
  /** The installation's idempotency keys for provider calls (domain/provider-keys.ts, store/installation.ts). */
  readonly providerKeys: ProviderKeys;
}
