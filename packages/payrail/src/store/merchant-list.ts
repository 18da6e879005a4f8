// The operator's list of merchants (`payrail merchant list`): each with its
// available balance and overdraft floor, oldest first, in pages.
import type { Tx } from './db.ts';

export interface MerchantListRow {
  id: string;
  name: string;
  payouts_must_link: number;
  created_at_ms: number;
  balance_cents: number | null;
  floor_cents: number | null;
}

/** At most `limit` merchants created after the one named by `afterId` (oldest first), or from the first when null. */
export async function listMerchants(tx: Tx, afterId: string | null, limit: number): Promise<MerchantListRow[]> {
  const after = afterId === null ? '' : 'WHERE (m.created_at_ms, m.id) > (SELECT created_at_ms, id FROM merchants WHERE id = ?)';
  return tx.all<MerchantListRow>(
    `SELECT m.id, m.name, m.payouts_must_link, m.created_at_ms, a.balance_cents, a.floor_cents
     FROM merchants m LEFT JOIN accounts a ON a.merchant_id = m.id AND a.kind = 'available'
     ${after} ORDER BY m.created_at_ms, m.id LIMIT ?`,
    afterId === null ? [limit] : [afterId, limit],
  );
}
