// A page of a merchant's transfers (GET /api/transfers), cursor and rows read together.
import type { Db } from '../db.ts';
import { listTransfers, transferCursor, type TransferListRow } from '../transfer-list.ts';

export type { TransferListRow } from '../transfer-list.ts';

export interface TransferPageQuery {
  readonly merchantId: string;
  readonly state: number | null;
  readonly createdFromMs: number | null;
  readonly createdToMs: number | null;
  /** The id of the transfer the page starts after (older ones) or ends before (newer ones, nearest first). */
  readonly cursor: { readonly name: 'starting_after' | 'ending_before'; readonly value: string } | null;
  readonly limit: number;
}

/** The rows, or `unknown_cursor` when the cursor names no transfer of this merchant. */
export function readTransferPage(
  db: Db,
  query: TransferPageQuery,
): Promise<{ readonly kind: 'rows'; readonly rows: TransferListRow[] } | { readonly kind: 'unknown_cursor' }> {
  const { merchantId, cursor } = query;
  return db.read(async (tx) => {
    const at = cursor === null ? null : await transferCursor(tx, merchantId, cursor.value);
    if (at === undefined) return { kind: 'unknown_cursor' } as const;
    const after = cursor?.name === 'starting_after' ? at : null;
    const before = cursor?.name === 'ending_before' ? at : null;
    const { state, createdFromMs, createdToMs, limit } = query;
    return { kind: 'rows', rows: await listTransfers(tx, { merchantId, state, createdFromMs, createdToMs, after, before, limit }) } as const;
  });
}
