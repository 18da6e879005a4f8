// Erased card data must not survive in the store's files (docs/api-decisions.md
// section 8). A used nonce's security code and a final charge's card number
// are erased by UPDATE, and expired nonces by DELETE; SQLite zeroes the freed
// space (secure_delete) but the write-ahead log still holds the old page
// images until it is checkpointed and truncated, which this does. Nonce card
// data is sealed under a key that dies with the nonce anyway; this clears
// what the card-data key alone could open (a pending charge's number, kept
// for recovery until the charge is final).
import type { Service } from '../../service.ts';

/** How often the worker empties the write-ahead log: erased data outlive their erasure by about this much. */
export const SCRUB_INTERVAL_MS = 10_000;

/** Returns false when a reader or writer kept the store from finishing; the next round tries again. */
export async function scrubErasedCardData(deps: Pick<Service, 'db' | 'log'>): Promise<boolean> {
  const done = (await deps.db.scrub?.()) ?? true;
  if (!done) deps.log.debug('store scrub deferred: the write-ahead log is in use');
  return done;
}
