// What authentication writes, each in a transaction of its own: a refused
// attempt counted against the client address (and a wrong PIN against its
// key), a right PIN clearing the key's count, hashes of older forms replaced
// after a success; and the shared counters behind the abuse limits, with
// their pruning. The rules (limits, lock lengths) come from the caller.
import type { Db } from '../db.ts';
import { countAddressFailure, pruneAddressFailures } from '../auth-address-failures.ts';
import { listLockedSourceKeys, type LockedSourceKey, upgradeCredentialHashes } from '../merchants.ts';
import { clearPinFailures, countWrongPin, getPinFailures, type PinFailureCount, pruneStalePinFailures } from '../pin-failures.ts';
import { addRateLimitHits, pruneRateLimitHits } from '../rate-limit-hits.ts';

export type WrongPin = Parameters<typeof countWrongPin>[1];
export type AddressFailure = Parameters<typeof countAddressFailure>[1];
export type HashUpgrade = Parameters<typeof upgradeCredentialHashes>[2];

/** A refused authentication: the wrong PIN of a key (null: none) and the failure of the address, in one transaction; answers the key's count. */
export async function countAuthFailure(db: Db, wrongPin: WrongPin | null, address: AddressFailure): Promise<PinFailureCount | null> {
  return db.write(async (tx) => {
    const count = wrongPin === null ? null : await countWrongPin(tx, wrongPin);
    await countAddressFailure(tx, address);
    return count;
  });
}

/**
 * A right PIN, settled against the store's count, not the cached credential
 * row: when the key is locked by then, answers when the lock ends (nothing
 * changes); otherwise its count starts again and it answers 0.
 *
 * Most right PINs follow no wrong one: a read that finds no count settles
 * them without a write (every authenticated request would otherwise pay a
 * write transaction). A read cannot miss a wrong PIN that was answered: a
 * wrong PIN is answered only after its count commits. It can miss one still
 * in flight, which then simply follows this right PIN in the order of
 * attempts. A count found is settled by a write, in the same write order as
 * the wrong PINs' counts.
 */
export async function settleRightPin(db: Db, credentialId: string, nowMs: number): Promise<number> {
  const seen = await db.read((tx) => getPinFailures(tx, credentialId));
  if (seen === undefined || (seen.failures === 0 && seen.locked_until_ms <= nowMs)) return 0;
  return db.write(async (tx) => {
    const count = await getPinFailures(tx, credentialId);
    if (count === undefined) return 0;
    if (count.locked_until_ms > nowMs) return count.locked_until_ms;
    await clearPinFailures(tx, credentialId, nowMs);
    return 0;
  });
}

/** A wrong PIN of a key, with no address failure (the PIN of credentials presented to the wrong endpoint). */
export async function countWrongPinOnly(db: Db, wrongPin: WrongPin): Promise<void> {
  await db.write((tx) => countWrongPin(tx, wrongPin));
}

export async function upgradeHashes(db: Db, credentialId: string, change: HashUpgrade): Promise<void> {
  await db.write((tx) => upgradeCredentialHashes(tx, credentialId, change));
}

/** Adds this process's `hits` to a bucket's count of the window starting at `windowStartMs`; returns every process's total. */
export async function addRequestHits(db: Db, bucket: string, windowStartMs: number, hits: number): Promise<number> {
  return db.write((tx) => addRateLimitHits(tx, bucket, windowStartMs, hits));
}

/** Deletes up to `limit` rows per table of counters that limit nothing any more; returns how many went. */
export async function pruneCounters(
  db: Db,
  bounds: { nowMs: number; rateWindowStartMinMs: number; addressWindowStartMinMs: number; pinUpdatedBeforeMs: number; limit: number },
): Promise<number> {
  const { nowMs, limit } = bounds;
  return db.write(
    async (tx) =>
      (await pruneRateLimitHits(tx, bounds.rateWindowStartMinMs, limit)) +
      (await pruneAddressFailures(tx, nowMs, bounds.addressWindowStartMinMs, limit)) +
      (await pruneStalePinFailures(tx, nowMs, bounds.pinUpdatedBeforeMs, limit)),
  );
}

export async function lockedKeysOf(db: Db, merchantId: string, nowMs: number, limit: number): Promise<LockedSourceKey[]> {
  return db.read((tx) => listLockedSourceKeys(tx, merchantId, nowMs, limit));
}
