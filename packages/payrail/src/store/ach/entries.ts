// ACH entries (migration 029): the bank-account side of a check charge,
// refund or credit, and where it is in its life. A closed set of reads and
// writes; the guarded state changes with their postings are in
// transitions.ts.
import type { AchDirection, AchState, SecCode } from '../../domain/ach.ts';
import type { Db, Tx } from '../db.ts';

export interface AchEntryRow {
  readonly charge_pk: number;
  readonly merchant_id: string;
  readonly direction: AchDirection;
  readonly amount_cents: number;
  readonly account_name: string;
  readonly routing_number: string;
  /** As the request wrote it. */
  readonly account_type: string;
  readonly sec_code: SecCode;
  readonly network: string;
  readonly network_ref: string | null;
  readonly state: AchState;
  readonly submitted_at_ms: number;
  readonly originated_at_ms: number | null;
  readonly settled_at_ms: number | null;
  readonly returned_at_ms: number | null;
  readonly return_code: string | null;
  readonly return_reason: string | null;
  readonly returned_from: 'ach_pending' | 'available' | 'ach_returns_due' | null;
  readonly decline_message: string | null;
  readonly next_check_at_ms: number | null;
  readonly lease_until_ms: number;
  readonly updated_at_ms: number;
  /** When its void was first written: service clock, and the merchant's ACH clock (migration 031). */
  readonly void_asked_at_ms: number | null;
  readonly void_asked_ach_ms: number | null;
  /** When it was reserved, on the merchant's ACH clock (null for entries before migration 031). */
  readonly submitted_ach_ms: number | null;
}

export const ACH_ENTRY_COLUMNS =
  'charge_pk, merchant_id, direction, amount_cents, account_name, routing_number, account_type, sec_code, network, network_ref, state, submitted_at_ms, originated_at_ms, settled_at_ms, returned_at_ms, return_code, return_reason, returned_from, decline_message, next_check_at_ms, lease_until_ms, updated_at_ms, void_asked_at_ms, void_asked_ach_ms, submitted_ach_ms';

const nullableNumber = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** A row as both stores return it (PostgreSQL BIGINTs arrive as strings). */
export function achEntryOf(row: Record<string, unknown>): AchEntryRow {
  return {
    charge_pk: Number(row.charge_pk),
    merchant_id: String(row.merchant_id),
    direction: row.direction as AchDirection,
    amount_cents: Number(row.amount_cents),
    account_name: String(row.account_name),
    routing_number: String(row.routing_number),
    account_type: String(row.account_type),
    sec_code: row.sec_code as SecCode,
    network: String(row.network),
    network_ref: (row.network_ref as string | null) ?? null,
    state: row.state as AchState,
    submitted_at_ms: Number(row.submitted_at_ms),
    originated_at_ms: nullableNumber(row.originated_at_ms),
    settled_at_ms: nullableNumber(row.settled_at_ms),
    returned_at_ms: nullableNumber(row.returned_at_ms),
    return_code: (row.return_code as string | null) ?? null,
    return_reason: (row.return_reason as string | null) ?? null,
    returned_from: (row.returned_from as AchEntryRow['returned_from']) ?? null,
    decline_message: (row.decline_message as string | null) ?? null,
    next_check_at_ms: nullableNumber(row.next_check_at_ms),
    lease_until_ms: Number(row.lease_until_ms),
    updated_at_ms: Number(row.updated_at_ms),
    void_asked_at_ms: nullableNumber(row.void_asked_at_ms),
    void_asked_ach_ms: nullableNumber(row.void_asked_ach_ms),
    submitted_ach_ms: nullableNumber(row.submitted_ach_ms),
  };
}

export interface NewAchEntry {
  readonly chargePk: number;
  readonly merchantId: string;
  readonly direction: AchDirection;
  readonly amountCents: number;
  readonly accountName: string;
  readonly routingNumber: string;
  readonly accountType: string;
  readonly secCode: SecCode;
  readonly network: string;
  /** When the worker asks again if the submission's answer never arrives (the request died or timed out). */
  readonly retryAtMs: number;
  readonly nowMs: number;
}

/**
 * The entry of a check charge, refund or credit just reserved, in
 * `submitting`: inside the reservation's transaction. submitted_ach_ms is
 * the same moment on the merchant's sandbox ACH clock (flows/ach/check-clock.ts;
 * the service clock where no offset was ever set).
 */
export async function insertAchEntry(tx: Tx, entry: NewAchEntry): Promise<void> {
  await tx.run(
    `INSERT INTO ach_entries (charge_pk, merchant_id, direction, amount_cents, account_name, routing_number, account_type, sec_code, network, state, submitted_at_ms, next_check_at_ms, updated_at_ms, submitted_ach_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'submitting', ?, ?, ?, ? + COALESCE((SELECT offset_ms FROM sandbox_ach_clocks WHERE merchant_id = ?), 0))`,
    [
      entry.chargePk,
      entry.merchantId,
      entry.direction,
      entry.amountCents,
      entry.accountName,
      entry.routingNumber,
      entry.accountType,
      entry.secCode,
      entry.network,
      entry.nowMs,
      entry.retryAtMs,
      entry.nowMs,
      entry.nowMs,
      entry.merchantId,
    ],
  );
}

/** The entry of transaction `chargePk` of the merchant, if it is a check. */
export async function getAchEntry(tx: Tx, chargePk: number, merchantId: string): Promise<AchEntryRow | undefined> {
  const row = await tx.get(`SELECT ${ACH_ENTRY_COLUMNS} FROM ach_entries WHERE charge_pk = ? AND merchant_id = ?`, [chargePk, merchantId]);
  return row === undefined ? undefined : achEntryOf(row);
}

export function readAchEntry(db: Db, chargePk: number, merchantId: string): Promise<AchEntryRow | undefined> {
  return db.read((tx) => getAchEntry(tx, chargePk, merchantId));
}

/** A claimed entry and what the network is asked with: the account's last four digits. */
export interface ClaimedAchEntry extends AchEntryRow {
  readonly account_last4: string;
}

/**
 * Claims up to `limit` entries due at `nowMs` for `leaseMs`, soonest first:
 * a claimed entry is not handed to another worker until its lease lapses
 * (a worker that dies mid-call loses it then). A claim is a guarded UPDATE
 * per entry, so two workers never claim one entry.
 */
export async function claimDueAchEntries(db: Db, input: { nowMs: number; leaseMs: number; limit: number }): Promise<ClaimedAchEntry[]> {
  const due = await db.read((tx) =>
    tx.all<{ charge_pk: number | string }>(
      'SELECT charge_pk FROM ach_entries WHERE next_check_at_ms IS NOT NULL AND next_check_at_ms <= ? AND lease_until_ms <= ? ORDER BY next_check_at_ms LIMIT ?',
      [input.nowMs, input.nowMs, input.limit],
    ),
  );
  if (due.length === 0) return [];
  return db.write(async (tx) => {
    const claimed: ClaimedAchEntry[] = [];
    for (const { charge_pk } of due) {
      const row = await tx.get(
        `UPDATE ach_entries SET lease_until_ms = ? WHERE charge_pk = ? AND next_check_at_ms IS NOT NULL AND next_check_at_ms <= ? AND lease_until_ms <= ?
         RETURNING ${ACH_ENTRY_COLUMNS}, (SELECT last4 FROM charges c WHERE c.pk = ach_entries.charge_pk) AS account_last4`,
        [input.nowMs + input.leaseMs, Number(charge_pk), input.nowMs, input.nowMs],
      );
      if (row !== undefined) claimed.push({ ...achEntryOf(row), account_last4: String(row.account_last4) });
    }
    return claimed;
  });
}

/**
 * Sets when the entry is asked about next (null: never) and releases its
 * claim; nothing else changes. Only while the entry is still in the state
 * the worker claimed it in: a transition another process made meanwhile
 * wrote its own next check, which stays.
 */
export async function rescheduleAchEntry(db: Db, input: { chargePk: number; state: AchState; nextCheckAtMs: number | null; nowMs: number }): Promise<void> {
  await db.write((tx) =>
    tx.run('UPDATE ach_entries SET next_check_at_ms = ?, lease_until_ms = 0, updated_at_ms = ? WHERE charge_pk = ? AND state = ?', [
      input.nextCheckAtMs,
      input.nowMs,
      input.chargePk,
      input.state,
    ]),
  );
}
