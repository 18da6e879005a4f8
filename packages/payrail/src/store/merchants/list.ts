// Reading merchants in bulk: a page of `payrail merchant list`, and whether
// there is any merchant at all (the sandbox seeds one into an empty store).
import type { Db } from '../db.ts';
import { listMerchants, type MerchantListRow } from '../merchant-list.ts';
import { anyMerchantExists, getMerchant } from '../merchants.ts';

/** Up to `limit` merchants after `afterId` (null: from the first), oldest first; undefined when `afterId` names no merchant. */
export async function merchantsAfter(db: Db, afterId: string | null, limit: number): Promise<MerchantListRow[] | undefined> {
  return db.read(async (tx) => {
    if (afterId !== null && (await getMerchant(tx, afterId)) === undefined) return undefined;
    return listMerchants(tx, afterId, limit);
  });
}

export async function hasMerchants(db: Db): Promise<boolean> {
  return db.read(anyMerchantExists);
}
