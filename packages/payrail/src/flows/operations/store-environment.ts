// Binds a store to one environment (docs/api-decisions.md section 1). The
// first process to start on a store records its environment; from then on a
// production process refuses a sandbox store and the other way round, so
// sandbox credentials (and sandbox data) can never be served in production.
//
// Stores created before this rule have nothing recorded. The process that
// first starts on one records its own configured environment: such a store
// has always been served by deployments of one environment, and the process
// upgrading it is one of them (existing data count as sandbox unless
// production is configured). Credentials issued before the rule are then
// given that environment too (until then authentication takes a credential
// without one as the store's, which is the same thing).
import type { Logger } from 'pino';
import type { Environment } from '../../domain/credentials.ts';
import type { Db } from '../../store/db.ts';
import { claimStoreEnvironment as recordOrCheck } from '../../store/store-environment.ts';

export class StoreEnvironmentError extends Error {
  override readonly name = 'StoreEnvironmentError';
}

/** Records or checks the store's environment; throws StoreEnvironmentError on a mismatch. */
export async function claimStoreEnvironment(deps: { db: Db; log?: Logger }, environment: Environment): Promise<void> {
  const result = await recordOrCheck(deps.db, environment);
  if (result.recorded !== environment) {
    throw new StoreEnvironmentError(
      `this store belongs to the ${result.recorded} environment and this process is configured for ${environment} (PAYRAIL_ENV); ` +
        `a deployment never serves another environment's store: point ${environment} at its own store (PAYRAIL_DATA_DIR or DATABASE_URL)`,
    );
  }
  if (result.now) deps.log?.info({ environment }, 'store environment recorded');
  if (result.stamped > 0)
    deps.log?.warn({ environment, credentials: result.stamped }, 'credentials issued before environments were recorded now belong to this one');
}
