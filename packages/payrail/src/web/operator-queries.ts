// Read-only queries behind the operator's pages: merchants with their
// balances, and the queue of transfers waiting for reconciliation with the
// charges that could fund them. Each is one bounded query, never one per row.
import type { Tx } from '../store/db.ts';

export const MERCHANTS_LISTED_MAX = 100;
export const QUEUE_LISTED_MAX = 100;
const CANDIDATES_LISTED_MAX = 500;

export interface MerchantListRow {
  id: string;
  name: string;
  payouts_must_link: number;
  created_at_ms: number;
  balance_cents: number;
  floor_cents: number | null;
  in_flight_cents: number;
}

/** The newest merchants, or those whose id is `query` or whose name starts with it. */
export async function listMerchantsWithBalances(tx: Tx, query: string | null): Promise<MerchantListRow[]> {
  const select = `SELECT m.id, m.name, m.payouts_must_link, m.created_at_ms, a.balance_cents, a.floor_cents, f.balance_cents AS in_flight_cents
     FROM merchants m
     JOIN accounts a ON a.merchant_id = m.id AND a.kind = 'available'
     JOIN accounts f ON f.merchant_id = m.id AND f.kind = 'in_flight'`;
  if (query === null) {
    return tx.all<MerchantListRow>(`${select} ORDER BY m.created_at_ms DESC, m.id DESC LIMIT ?`, [MERCHANTS_LISTED_MAX]);
  }
  // LIKE wildcards typed by the operator are matched literally.
  const prefix = `${query.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
  return tx.all<MerchantListRow>(`${select} WHERE m.id = ? OR m.name LIKE ? ESCAPE '\\' ORDER BY m.created_at_ms DESC, m.id DESC LIMIT ?`, [
    query,
    prefix,
    MERCHANTS_LISTED_MAX,
  ]);
}

export interface WaitingTransferRow {
  pk: number;
  id: string;
  merchant_id: string;
  merchant_name: string;
  receiver_phone: string;
  amount_cents: number;
  created_at_ms: number;
}

export interface CandidateChargeRow {
  pk: number;
  merchant_id: string;
  amount_cents: number;
  linked_cents: number;
  created_at_ms: number;
}

/** Transfers in state 0 substate 9 waiting for an operator or the reconciler, oldest first. */
export async function reconciliationQueue(tx: Tx): Promise<{ transfers: WaitingTransferRow[]; candidates: CandidateChargeRow[] }> {
  const transfers = await tx.all<WaitingTransferRow>(
    `SELECT t.pk, t.id, t.merchant_id, m.name AS merchant_name, t.receiver_phone, t.amount_cents, t.created_at_ms
     FROM transfers t JOIN merchants m ON m.id = t.merchant_id
     WHERE t.final = 0 AND t.state = 0 AND t.substate = 9 AND t.waiting_for = 'reconciliation'
     ORDER BY t.created_at_ms, t.pk LIMIT ?`,
    [QUEUE_LISTED_MAX],
  );
  if (transfers.length === 0) return { transfers, candidates: [] };
  const candidates = await tx.all<CandidateChargeRow>(
    `SELECT c.pk, c.merchant_id, c.amount_cents, c.linked_cents, c.created_at_ms FROM charges c
     WHERE c.status = 'approved' AND c.linked_cents < c.amount_cents
       AND c.merchant_id IN (SELECT t.merchant_id FROM transfers t WHERE t.final = 0 AND t.state = 0 AND t.substate = 9 AND t.waiting_for = 'reconciliation')
     ORDER BY c.created_at_ms DESC, c.pk DESC LIMIT ?`,
    [CANDIDATES_LISTED_MAX],
  );
  return { transfers, candidates };
}
