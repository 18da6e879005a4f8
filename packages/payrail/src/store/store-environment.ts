// The environment a store belongs to (docs/api-decisions.md section 1),
// recorded in `settings` by the first process that starts on it, so a
// production server refuses a sandbox store and the other way round.
import type { Environment } from '../domain/credentials.ts';
import type { Db, Tx } from './db.ts';
import { stampCredentialEnvironment } from './merchants.ts';

const SETTING = 'store_environment';

/**
 * Records `environment` unless the store already has one (the first process
 * to commit wins, across processes), and returns the recorded one with
 * whether this call recorded it.
 */
export async function recordStoreEnvironment(tx: Tx, environment: Environment): Promise<{ recorded: string; now: boolean }> {
  const inserted = await tx.run('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING', [SETTING, environment]);
  const row = await tx.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [SETTING]);
  if (row === undefined) throw new Error('the store environment was not recorded');
  return { recorded: row.value, now: inserted.changes === 1 };
}

/**
 * Records the store's environment if none is, and answers the recorded one.
 * When it is `environment`, credentials issued without an environment are
 * given it (always, not only when recording: an older process still running
 * during an upgrade may have issued one since); `stamped` counts them.
 */
export function claimStoreEnvironment(db: Db, environment: Environment): Promise<{ recorded: string; now: boolean; stamped: number }> {
  return db.write(async (tx) => {
    const recorded = await recordStoreEnvironment(tx, environment);
    const stamped = recorded.recorded === environment ? await stampCredentialEnvironment(tx, environment) : 0;
    return { ...recorded, stamped };
  });
}
