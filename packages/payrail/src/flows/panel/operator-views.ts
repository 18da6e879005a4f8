// What the panel's operator pages show: merchants with their balances, and
// the queue of transfers waiting for reconciliation with the charges that
// could fund them. Each function is one read transaction of bounded
// queries, never one query per row.
import { listReconciliationCandidates, type ReconciliationCandidate } from '../../store/panel-charges.ts';
import { listMerchantsWithBalances, type MerchantListItem } from '../../store/panel-merchants.ts';
import { listTransfersWaitingForReconciliation, type WaitingTransferItem } from '../../store/panel-transfers.ts';
import type { PanelDeps } from './deps.ts';

export type { MerchantListItem, ReconciliationCandidate, WaitingTransferItem };

const MERCHANTS_LISTED_MAX = 100;
const QUEUE_LISTED_MAX = 100;
const CANDIDATES_LISTED_MAX = 500;

/** The newest merchants, or those whose id is `query` or whose name starts with it. */
export async function merchantList(deps: Pick<PanelDeps, 'db'>, query: string | null): Promise<MerchantListItem[]> {
  return deps.db.read((tx) => listMerchantsWithBalances(tx, query, MERCHANTS_LISTED_MAX));
}

/** Transfers in state 0 substate 9 waiting for an operator or the reconciler, oldest first, and approved charges with room. */
export async function reconciliationQueue(deps: Pick<PanelDeps, 'db'>): Promise<{ transfers: WaitingTransferItem[]; candidates: ReconciliationCandidate[] }> {
  return deps.db.read(async (tx) => {
    const transfers = await listTransfersWaitingForReconciliation(tx, QUEUE_LISTED_MAX);
    if (transfers.length === 0) return { transfers, candidates: [] };
    return { transfers, candidates: await listReconciliationCandidates(tx, CANDIDATES_LISTED_MAX) };
  });
}
