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
 * Transfers of these payout connectors whose payout the network named
 * `providerRef` (two networks may use the same text); at most `limit`.
 */
export function readTransfersByProviderRef(db: Db, providerRef: string, connectors: readonly string[], limit: number): Promise<TransferRow[]> {
  if (connectors.length === 0) return Promise.resolve([]);
  const marks = connectors.map(() => '?').join(', ');
  return db.read((tx) =>
    tx.all<TransferRow>(`SELECT ${TRANSFER_COLUMNS} FROM transfers WHERE provider_ref = ? AND payout_connector IN (${marks}) ORDER BY pk LIMIT ?`, [
      providerRef,
      ...connectors,
      limit,
    ]),
  );
}
