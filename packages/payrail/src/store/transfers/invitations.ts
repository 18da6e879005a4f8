// Transfers waiting for their receiver to accept the payment invitation,
// released once the receiver has (the sandbox's accept, flows/transfers/sandbox.ts).
import type { Db } from '../db.ts';
import { invitationWaitsOf, type TransferChange, type TransferRow } from '../transfers.ts';
import { applyTransition, type PrepareTransitions } from './transitions.ts';

/**
 * Releases at most `limit` transfers waiting for `receiverPhone`, each by
 * `change` of its row, in one transaction; returns how many were released
 * (a row someone else changed meanwhile is left alone).
 */
export function releaseInvitationWaits(
  db: Db,
  input: {
    readonly receiverPhone: string;
    readonly nowMs: number;
    readonly limit: number;
    readonly change: (row: TransferRow) => TransferChange;
    readonly note: string;
    readonly prepare: PrepareTransitions;
  },
): Promise<number> {
  return db.write(async (tx) => {
    let released = 0;
    for (const row of await invitationWaitsOf(tx, input.receiverPhone, input.nowMs, input.limit)) {
      if (await applyTransition(tx, input.prepare, row, input.change(row), input.note, input.nowMs)) released += 1;
    }
    return released;
  });
}
