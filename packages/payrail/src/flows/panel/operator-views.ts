// What the panel's operator pages show: merchants with their balances, and
// the queue of transfers waiting for reconciliation with the charges that
// could fund them. Each function is one read of bounded queries
// (store/panel/operator-pages.ts), never one query per row.
import { readMerchantList, readReconciliationQueue } from '../../store/panel/operator-pages.ts';
import type { ReconciliationCandidate } from '../../store/panel-charges.ts';
import type { MerchantListItem } from '../../store/panel-merchants.ts';
import type { WaitingTransferItem } from '../../store/panel-transfers.ts';
import type { PanelDeps } from './deps.ts';

export type { MerchantListItem, ReconciliationCandidate, WaitingTransferItem };

const MERCHANTS_LISTED_MAX = 100;
const QUEUE_LISTED_MAX = 100;
const CANDIDATES_LISTED_MAX = 500;

/** The newest merchants, or those whose id is `query` or whose name starts with it. */
export async function merchantList(deps: Pick<PanelDeps, 'db'>, query: string | null): Promise<MerchantListItem[]> {
  return readMerchantList(deps.db, { query, limit: MERCHANTS_LISTED_MAX });
}

/** Transfers in state 0 substate 9 waiting for an operator or the reconciler, oldest first, and approved charges with room. */
export async function reconciliationQueue(deps: Pick<PanelDeps, 'db'>): Promise<{ transfers: WaitingTransferItem[]; candidates: ReconciliationCandidate[] }> {
  return readReconciliationQueue(deps.db, { transfersMax: QUEUE_LISTED_MAX, candidatesMax: CANDIDATES_LISTED_MAX });
}
