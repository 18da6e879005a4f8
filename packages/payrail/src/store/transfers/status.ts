// A transfer's status row (GET /api/status/:id), by the merchant's id for it.
import type { Db } from '../db.ts';
import { readTransferStatus as readStatusIn, readTransferStatuses, type TransferStatusRow } from '../transfers.ts';

export type { TransferStatusRow } from '../transfers.ts';

/** The row, or undefined when this merchant has no transfer with this id. */
export function readTransferStatus(db: Db, merchantId: string, id: string): Promise<TransferStatusRow | undefined> {
  // PostgreSQL: with the other status reads of the moment, in one statement (a statement's fixed cost paid once for them all).
  if (db.batched !== undefined) return db.batched('transfer.status', { merchantId, id }, readTransferStatuses);
  return db.read((tx) => readStatusIn(tx, merchantId, id));
}
