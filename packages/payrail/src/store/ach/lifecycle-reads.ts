// What the ACH lifecycle (flows/ach/lifecycle.ts) reads beyond an entry:
// the sealed account of an entry sent again, and a merchant's open entries
// claimed at once when the sandbox's ACH clock moves (flows/ach/sandbox-clock.ts).
import type { AchState } from '../../domain/ach.ts';
import type { Db } from '../db.ts';
import { getMerchant } from '../merchants.ts';
import { readAchClockOffsetMs } from '../sandbox-ach-clocks.ts';
import { ACH_ENTRY_COLUMNS, achEntryOf, type ClaimedAchEntry } from './entries.ts';

/** What sending an entry again needs from its charges row (and, for a refund, its charge's entry). */
export interface AchResubmissionFacts {
  readonly source_id: string;
  /** The account number, sealed like a card number (crypto/card-cipher.ts, field card_number); empty once erased. */
  readonly account_enc: Buffer;
  readonly parent_pk: number | null;
  /** The network's id of the refunded check, for a refund; null otherwise. */
  readonly parent_network_ref: string | null;
  /** The refunded check's entry state, for a refund; null otherwise. */
  readonly parent_state: AchState | null;
}

export async function readAchResubmission(db: Db, chargePk: number): Promise<AchResubmissionFacts | undefined> {
  const row = await db.read((tx) =>
    tx.get<Record<string, unknown>>(
      `SELECT c.source_id, c.card_number_enc, c.parent_pk, p.network_ref AS parent_network_ref, p.state AS parent_state
       FROM charges c LEFT JOIN ach_entries p ON p.charge_pk = c.parent_pk
       WHERE c.pk = ? AND c.payment_type = 'check'`,
      [chargePk],
    ),
  );
  if (row === undefined) return undefined;
  return {
    source_id: String(row.source_id),
    account_enc: Buffer.from(row.card_number_enc as Uint8Array),
    parent_pk: row.parent_pk === null || row.parent_pk === undefined ? null : Number(row.parent_pk),
    parent_network_ref: (row.parent_network_ref as string | null) ?? null,
    parent_state: (row.parent_state as AchState | null) ?? null,
  };
}

/**
 * Claims up to `limit` of the merchant's entries that are still watched
 * (next_check_at_ms set), due or not, for `leaseMs`: the sandbox's clock just
 * moved, so each may have moved at the network. An entry another process
 * holds is left to it.
 */
export async function claimOpenAchEntriesOfMerchant(
  db: Db,
  input: { merchantId: string; nowMs: number; leaseMs: number; limit: number },
): Promise<ClaimedAchEntry[]> {
  return db.write(async (tx) => {
    const rows = await tx.all(
      `UPDATE ach_entries SET lease_until_ms = ?
       WHERE charge_pk IN (SELECT charge_pk FROM ach_entries WHERE merchant_id = ? AND next_check_at_ms IS NOT NULL AND lease_until_ms <= ? ORDER BY charge_pk LIMIT ?)
         AND next_check_at_ms IS NOT NULL AND lease_until_ms <= ?
       RETURNING ${ACH_ENTRY_COLUMNS}, (SELECT last4 FROM charges c WHERE c.pk = ach_entries.charge_pk) AS account_last4`,
      [input.nowMs + input.leaseMs, input.merchantId, input.nowMs, input.limit, input.nowMs],
    );
    return rows.map((row) => ({ ...achEntryOf(row), account_last4: String(row.account_last4) })).sort((a, b) => a.charge_pk - b.charge_pk);
  });
}

/** How far the merchant's sandbox ACH clock is ahead of the service clock, or null when there is no such merchant. */
export function readMerchantAchClockOffsetMs(db: Db, merchantId: string): Promise<number | null> {
  return db.read(async (tx) => ((await getMerchant(tx, merchantId)) === undefined ? null : readAchClockOffsetMs(tx, merchantId)));
}
