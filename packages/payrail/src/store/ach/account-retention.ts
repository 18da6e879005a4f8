// Erasing the sealed account numbers of checks no refund or return can need
// any more (flows/ach/account-retention.ts decides when): the charges row's
// card_number_enc becomes empty, as a final card charge's does. A look
// first (a read), so an idle worker writes nothing; then one bounded write.
import type { Db, Tx } from '../db.ts';

/**
 * Entries nothing can change any more: final (returned, voided, declined,
 * failed), or settled and no longer watched for returns (next_check_at_ms
 * NULL), last changed before `finalBeforeMs`.
 */
const ERASABLE = `SELECT e.charge_pk FROM ach_entries e JOIN charges c ON c.pk = e.charge_pk
  WHERE e.next_check_at_ms IS NULL AND e.state IN ('settled', 'returned', 'voided', 'declined', 'failed')
    AND e.updated_at_ms < ? AND c.payment_type = 'check' AND length(c.card_number_enc) > 0`;

export async function hasErasableAchAccounts(db: Db, finalBeforeMs: number): Promise<boolean> {
  return (await db.read((tx) => tx.get(`${ERASABLE} LIMIT 1`, [finalBeforeMs]))) !== undefined;
}

const ERASED = Buffer.alloc(0);

/** Erases at most `limit` of them; returns how many. */
export function eraseAchAccounts(db: Db, input: { finalBeforeMs: number; limit: number }): Promise<number> {
  return db.write(async (tx: Tx) => {
    // updated_at_ms stays: the transaction as the API shows it did not change.
    const result = await tx.run(`UPDATE charges SET card_number_enc = ? WHERE pk IN (${ERASABLE} ORDER BY e.updated_at_ms LIMIT ?)`, [
      ERASED,
      input.finalBeforeMs,
      input.limit,
    ]);
    return result.changes;
  });
}
