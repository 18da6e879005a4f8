// What the panel's operator pages read: merchants with their balances, and
// the reconciliation queue with the charges that could fund it, each in one
// read of bounded queries.
import type { Db } from '../db.ts';
import { listReconciliationCandidates, type ReconciliationCandidate } from '../panel-charges.ts';
import { listMerchantsWithBalances, type MerchantListItem } from '../panel-merchants.ts';
import { listTransfersWaitingForReconciliation, type WaitingTransferItem } from '../panel-transfers.ts';

export async function readMerchantList(db: Db, input: { query: string | null; limit: number }): Promise<MerchantListItem[]> {
  return db.read((tx) => listMerchantsWithBalances(tx, input.query, input.limit));
}

/** Waiting transfers (up to `transfersMax`), and approved charges with room (up to `candidatesMax`) when any transfer waits. */
export async function readReconciliationQueue(
  db: Db,
  input: { transfersMax: number; candidatesMax: number },
): Promise<{ transfers: WaitingTransferItem[]; candidates: ReconciliationCandidate[] }> {
  return db.read(async (tx) => {
    const transfers = await listTransfersWaitingForReconciliation(tx, input.transfersMax);
    if (transfers.length === 0) return { transfers, candidates: [] };
    return { transfers, candidates: await listReconciliationCandidates(tx, input.candidatesMax) };
  });
}
