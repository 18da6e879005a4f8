// The charge path's reads and its small writes outside steps 1 and 3: the
// charge as it stands, the one holding a key, a key's stored reply, the mark
// of an unanswered charge's key, the worker's claim of due charges, and the
// pending charge a provider callback names.
import {
  type ChargeRow,
  claimDueCharges,
  type DueCharge,
  getCharge,
  getChargeHoldingKey,
  getPendingCharge,
  getPendingChargeByProcessorRef,
} from '../charges.ts';
import type { Db } from '../db.ts';
import { getKey, type HeldKey, type IdempotencyRow, markKeyOutcomeUnknown } from '../idempotency.ts';

export function readCharge(db: Db, query: { pk: number; merchantId: string }): Promise<ChargeRow | undefined> {
  return db.read((tx) => getCharge(tx, query.pk, query.merchantId));
}

/** The charge reserved with a key at `reservedAtMs` (its request died before recording anything). */
export function readChargeHoldingKey(db: Db, key: HeldKey): Promise<ChargeRow | undefined> {
  return db.read((tx) => getChargeHoldingKey(tx, key));
}

export function readIdempotencyKey(db: Db, query: { sourceId: string; idemKey: string }): Promise<IdempotencyRow | undefined> {
  return db.read((tx) => getKey(tx, query.sourceId, query.idemKey));
}

/** Same-key retries answer `pendingJson` at once instead of waiting for a request that gave up. */
export function markKeyUnanswered(db: Db, input: { sourceId: string; idemKey: string; pendingJson: string }): Promise<void> {
  return db.write((tx) => markKeyOutcomeUnknown(tx, input.sourceId, input.idemKey, input.pendingJson));
}

/** Claims due pending charges, leased until `leaseUntilMs` so a crashed worker's batch comes back. */
export function claimDueChargesBatch(db: Db, input: { nowMs: number; leaseUntilMs: number; limit: number }): Promise<DueCharge[]> {
  return db.write((tx) => claimDueCharges(tx, input.nowMs, input.leaseUntilMs, input.limit));
}

/** The pending charge the processor knows as `processorRef` (a provider callback's hint), or undefined. */
export function readPendingChargeByProcessorRef(db: Db, processorRef: string): Promise<DueCharge | undefined> {
  return db.read((tx) => getPendingChargeByProcessorRef(tx, processorRef));
}

/** The pending charge `pk` (a provider callback's key names it), with or without a processor id; undefined when not pending. */
export function readPendingCharge(db: Db, pk: number): Promise<DueCharge | undefined> {
  return db.read((tx) => getPendingCharge(tx, pk));
}
