// Pruning the payin tables (flows/payin/cleanup.ts): a read that says what
// there is to prune, so an idle worker writes nothing, and one write that
// prunes only those tables, each in a bounded batch.
import { eraseExpiredReferenceCards, hasExpiredReferenceCards } from '../charges.ts';
import type { Db } from '../db.ts';
import { hasPrunableKeys, pruneKeys } from '../idempotency.ts';
import { hasExpiredNonces, pruneExpiredNonces } from '../nonces.ts';

/** Expired nonces and charges' reference cards before `nowMs`; keys and verifications' reference cards made before their bounds. */
export interface PayinPruneBounds {
  readonly nowMs: number;
  readonly keysBeforeMs: number;
  readonly verificationCardsBeforeMs: number;
}

export interface PayinPrunable {
  readonly nonces: boolean;
  readonly keys: boolean;
  readonly cards: boolean;
}

export function findPrunablePayinData(db: Db, bounds: PayinPruneBounds): Promise<PayinPrunable> {
  return db.read(async (tx) => ({
    nonces: await hasExpiredNonces(tx, bounds.nowMs),
    keys: await hasPrunableKeys(tx, bounds.keysBeforeMs),
    cards: await hasExpiredReferenceCards(tx, { nowMs: bounds.nowMs, verificationsBeforeMs: bounds.verificationCardsBeforeMs }),
  }));
}

/** Deletes (or erases) up to `limit` rows of each table `which` names; returns how many. */
export function prunePayinRows(db: Db, input: PayinPruneBounds & { which: PayinPrunable; limit: number }): Promise<number> {
  const { which, limit } = input;
  return db.write(
    async (tx) =>
      (which.nonces ? await pruneExpiredNonces(tx, input.nowMs, limit) : 0) +
      (which.keys ? await pruneKeys(tx, input.keysBeforeMs, limit) : 0) +
      (which.cards ? await eraseExpiredReferenceCards(tx, { nowMs: input.nowMs, verificationsBeforeMs: input.verificationCardsBeforeMs }, limit) : 0),
  );
}
