// What the merchant and the operator see of the wrong-PIN lock
// (docs/api-decisions.md section 13): a merchant's source keys that are
// locked now, with how many wrong PINs locked them and until when. The
// control panel's credentials page shows them; rotating the source's
// credentials gives a key with no lock.
import type { Clock } from '../../domain/clock.ts';
import type { Db } from '../../store/db.ts';
import { lockedKeysOf } from '../../store/access/auth-counters.ts';
import type { LockedSourceKey } from '../../store/merchants.ts';

export type { LockedSourceKey };

/** A merchant has a handful of sources; no more locked keys than this are listed. */
export const LOCKED_KEYS_LISTED_MAX = 200;

export async function lockedSourceKeys(deps: { db: Db; clock: Clock }, merchantId: string): Promise<LockedSourceKey[]> {
  return lockedKeysOf(deps.db, merchantId, deps.clock.nowMs(), LOCKED_KEYS_LISTED_MAX);
}
