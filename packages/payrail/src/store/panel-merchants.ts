// Read-only projections of merchants, sources and credentials for the
// control panel: the operator's merchant list with balances (one join, never
// a query per merchant) and the merchant's own credentials page. Secrets are
// never read here: only ids, names and dates.
import type { Tx } from './db.ts';
import type { MerchantRow, SourceRow } from './merchants.ts';

/** A merchant with the balance and floor of its available account and its in-flight total. */
export type MerchantListItem = MerchantRow & {
  balance_cents: number;
  floor_cents: number | null;
  in_flight_cents: number;
};

/** Up to `limit` merchants, newest first: all of them, or those whose id is `query` or whose name starts with it. */
export async function listMerchantsWithBalances(tx: Tx, query: string | null, limit: number): Promise<MerchantListItem[]> {
  const select = `SELECT m.id, m.name, m.payouts_must_link, m.created_at_ms, a.balance_cents, a.floor_cents, f.balance_cents AS in_flight_cents
     FROM merchants m
     JOIN accounts a ON a.merchant_id = m.id AND a.kind = 'available'
     JOIN accounts f ON f.merchant_id = m.id AND f.kind = 'in_flight'`;
  if (query === null) {
    return tx.all<MerchantListItem>(`${select} ORDER BY m.created_at_ms DESC, m.id DESC LIMIT ?`, [limit]);
  }
  // LIKE wildcards typed by the operator are matched literally.
  const prefix = `${query.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
  return tx.all<MerchantListItem>(`${select} WHERE m.id = ? OR m.name LIKE ? ESCAPE '\\' ORDER BY m.created_at_ms DESC, m.id DESC LIMIT ?`, [
    query,
    prefix,
    limit,
  ]);
}

/** A source of the merchant (with its wire dialect) and the public id of its active API key. */
export type SourceListItem = Pick<SourceRow, 'id' | 'name' | 'dialect' | 'created_at_ms' | 'revoked_at_ms'> & {
  /** Public id part of the active API key, for telling keys apart; null when none is active. */
  key_id: string | null;
};

/** Up to `limit` sources of the merchant, oldest first. */
export async function listSourcesWithActiveKey(tx: Tx, merchantId: string, limit: number): Promise<SourceListItem[]> {
  return tx.all<SourceListItem>(
    `SELECT s.id, s.name, s.dialect, s.created_at_ms, s.revoked_at_ms,
            (SELECT c.id FROM credentials c WHERE c.source_id = s.id AND c.kind = 'source_key' AND c.revoked_at_ms IS NULL ORDER BY c.created_at_ms DESC LIMIT 1) AS key_id
     FROM sources s WHERE s.merchant_id = ? ORDER BY s.created_at_ms, s.id LIMIT ?`,
    [merchantId, limit],
  );
}

/** The merchant's newest unrevoked transfer API key: its public id and when it was issued. */
export interface ActiveTransferKey {
  id: string;
  created_at_ms: number;
}

export async function getActiveTransferKey(tx: Tx, merchantId: string): Promise<ActiveTransferKey | undefined> {
  return tx.get<ActiveTransferKey>(
    "SELECT id, created_at_ms FROM credentials WHERE merchant_id = ? AND kind = 'transfer_key' AND revoked_at_ms IS NULL ORDER BY created_at_ms DESC LIMIT 1",
    [merchantId],
  );
}
