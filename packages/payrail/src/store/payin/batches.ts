// Settlement batches as the flows close and read them (docs/api-decisions.md
// section 10). Every close is one write transaction per batch, with its
// batch.closed event (section 11), whose data the flow renders (a pure
// function handed in).
import { type BatchFilters, type BatchRow, closeBatch, dueBatchIds, getBatch, listBatches, openBatchIds } from '../batches.ts';
import type { Db, Tx } from '../db.ts';
import { insertEvent } from '../events.ts';

/** A batch's event data, as the batch API shows it. */
export type BatchJson = (row: BatchRow) => string;

/** Closes a batch and writes its batch.closed event in the same transaction; false when it was closed already. */
async function closeWithEvent(tx: Tx, id: number, nowMs: number, batchJson: BatchJson): Promise<boolean> {
  if (!(await closeBatch(tx, id, nowMs))) return false;
  const batch = await getBatch(tx, null, id);
  if (batch === undefined) throw new Error(`batch ${id} vanished while closing`);
  await insertEvent(tx, { merchantId: batch.merchant_id, type: 'batch.closed', dataJson: batchJson(batch), nowMs });
  return true;
}

/** Closes batch `id` at `nowMs` (the worker's scheduled close); false when it was closed already. */
export async function closeDueBatch(db: Db, input: { id: number; nowMs: number; batchJson: BatchJson }): Promise<boolean> {
  return db.write((tx) => closeWithEvent(tx, input.id, input.nowMs, input.batchJson));
}

/** Closes batch `id` now (an immediate close) and answers it as closed; null when it was closed already. */
export async function closeBatchNow(db: Db, input: { id: number; clock: { nowMs(): number }; batchJson: BatchJson }): Promise<BatchRow | null> {
  return db.write(async (tx) => {
    if (!(await closeWithEvent(tx, input.id, input.clock.nowMs(), input.batchJson))) return null;
    return (await getBatch(tx, null, input.id)) ?? null;
  });
}

/** Open batches opened before `openedBeforeMs` (the last scheduled close), at most `limit`. */
export async function dueBatches(db: Db, input: { openedBeforeMs: number; limit: number }): Promise<number[]> {
  return db.read((tx) => dueBatchIds(tx, input.openedBeforeMs, input.limit));
}

/** Open batches of one merchant (at most one), or of every merchant for null, at most `limit`. */
export async function openBatches(db: Db, input: { merchantId: string | null; limit: number }): Promise<number[]> {
  return db.read((tx) => openBatchIds(tx, input.merchantId, input.limit));
}

/** The merchant's batches (or every merchant's for null) matching the filters (default: all, newest first). */
export async function batchPage(
  db: Db,
  input: { merchantId: string | null; page: { limit: number; offset: number }; filters?: BatchFilters },
): Promise<BatchRow[]> {
  return db.read((tx) => listBatches(tx, input.merchantId, input.page, input.filters));
}

/** A batch of the merchant; undefined when there is none (another merchant's reads as absent). */
export async function batchOfMerchant(db: Db, input: { merchantId: string; id: number }): Promise<BatchRow | undefined> {
  return db.read((tx) => getBatch(tx, input.merchantId, input.id));
}
