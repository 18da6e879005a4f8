// Finding the transfer a payout network's callback is about
// (flows/providers/callbacks.ts): by its key, which Payrail's reference
// carries, or by the network's own reference of the payout
// (transfers_provider_ref, migration 028).
import type { Db } from '../db.ts';
import { TRANSFER_COLUMNS, type TransferRow } from '../transfers.ts';

export function readTransferByPk(db: Db, pk: number): Promise<TransferRow | undefined> {
  return db.read((tx) => tx.get<TransferRow>(`SELECT ${TRANSFER_COLUMNS} FROM transfers WHERE pk = ?`, [pk]));
}

/**
 * Transfers whose payout the network named `providerRef` (two networks may
 * use the same text, so the caller picks by connector); at most `limit`.
 */
export function readTransfersByProviderRef(db: Db, providerRef: string, limit: number): Promise<TransferRow[]> {
  return db.read((tx) => tx.all<TransferRow>(`SELECT ${TRANSFER_COLUMNS} FROM transfers WHERE provider_ref = ? ORDER BY pk LIMIT ?`, [providerRef, limit]));
}
