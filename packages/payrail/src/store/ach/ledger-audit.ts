// The facts `payrail ledger verify` compares for checks (behaviour.md
// section 17), read in the verifier's snapshot (store/ledger-audit.ts). What
// each ACH account must hold follows from the postings of the entry
// transitions (store/ach/transitions.ts):
//
//   debit (a check charge)  accept: ach_payins -> ach_pending; settle:
//     ach_pending -> available; void, or return before settlement:
//     ach_pending -> ach_payins; return after settlement: available as far
//     as its floor allows (check.return), the rest from ach_returns_due
//     (check.return_due) -> ach_payins; a later settlement of the
//     merchant's recovers what is owed: available -> ach_returns_due
//     (check.returns_recover).
//   credit (a refund, an unmatched credit)  hold at reservation: available
//     -> ach_payins; release when refused, voided or returned: ach_payins ->
//     available.
//
// So per merchant: ach_pending = the debits in pending, voiding or
// originated; ach_payins = the credits not refused, voided or returned
// (submitting to settled) minus the debits accepted and not given back
// (pending to settled); ach_returns_due = minus what returned debits took
// from it (their amount less what available covered) plus what settlements
// recovered. Per entry, its postings match its state, exactly.
import type { Tx } from '../db.ts';

/** Rows listed per kind of broken record (as store/ledger-audit.ts AUDIT_ROWS_MAX). */
const ROWS_MAX = 100;

export interface AchLedgerFacts {
  /** Per merchant, what each ACH account must hold by the entries. */
  readonly pendingByMerchant: Map<string, number>;
  readonly payinsByMerchant: Map<string, number>;
  /** The amount taken from ach_returns_due (its balance must be minus this). */
  readonly returnsDueByMerchant: Map<string, number>;
  /** Entries whose postings (or return bookkeeping) do not match their state. */
  readonly entriesWithMismatchedPostings: Array<{ pk: number; state: string }>;
  /** Check rows with no ACH entry, and ACH entries of rows that are not checks or disagree with their row. */
  readonly checksWithoutEntry: number[];
  readonly entriesNotMatchingTheirRow: number[];
  /** Card rows with check postings. */
  readonly cardsWithCheckPostings: number[];
  /** Check charges whose refunded amount is not the sum of their refunds still live (not refused, voided or returned). */
  readonly checksWithWrongRefundedTotal: number[];
  /**
   * Check rows whose captured amount or status disagrees with their entry:
   * a check charge has captured its amount exactly when settled, nothing
   * before, and once returned exactly what its live refunds hold (nothing
   * more may be refunded); a refund or credit captures nothing. The status
   * is pending while submitting, declined or failed as refused, approved
   * otherwise.
   */
  readonly checksNotMatchingTheirEntry: number[];
}

const LIVE_CREDIT = "('submitting', 'pending', 'voiding', 'originated', 'settled')";
const ACCEPTED_DEBIT = "('pending', 'voiding', 'originated', 'settled')";

export async function readAchLedgerFacts(tx: Tx): Promise<AchLedgerFacts> {
  return {
    pendingByMerchant: sumsBy(
      await tx.all(
        "SELECT merchant_id AS id, SUM(amount_cents) AS total FROM ach_entries WHERE direction = 'debit' AND state IN ('pending', 'voiding', 'originated') GROUP BY merchant_id",
      ),
    ),
    payinsByMerchant: sumsBy(
      await tx.all(
        `SELECT merchant_id AS id, SUM(CASE WHEN direction = 'credit' AND state IN ${LIVE_CREDIT} THEN amount_cents
           WHEN direction = 'debit' AND state IN ${ACCEPTED_DEBIT} THEN -amount_cents ELSE 0 END) AS total
         FROM ach_entries GROUP BY merchant_id`,
      ),
    ),
    // What a return took from ach_returns_due is its amount less what available covered (the check.return posting, which the
    // per-entry rules tie to the amount); less what later settlements recovered.
    returnsDueByMerchant: sumsBy(
      await tx.all(
        `SELECT e.merchant_id AS id, SUM(CASE WHEN e.direction = 'debit' AND e.state = 'returned' AND e.returned_from = 'ach_returns_due'
             THEN e.amount_cents - COALESCE(p.return_c, 0) ELSE 0 END - COALESCE(p.recover_c, 0)) AS total
         FROM ach_entries e LEFT JOIN (
           SELECT ref_id, SUM(CASE WHEN kind = 'check.return' THEN amount_cents ELSE 0 END) AS return_c,
             SUM(CASE WHEN kind = 'check.returns_recover' THEN amount_cents ELSE 0 END) AS recover_c
           FROM postings WHERE ref_type = 'charge' GROUP BY ref_id) p ON p.ref_id = ${castText(tx, 'e.charge_pk')}
         GROUP BY e.merchant_id`,
      ),
    ),
    entriesWithMismatchedPostings: await entriesWithMismatchedPostings(tx),
    checksWithoutEntry: pks(
      await tx.all("SELECT c.pk FROM charges c WHERE c.payment_type = 'check' AND NOT EXISTS (SELECT 1 FROM ach_entries e WHERE e.charge_pk = c.pk) LIMIT ?", [
        ROWS_MAX,
      ]),
    ),
    entriesNotMatchingTheirRow: pks(
      await tx.all(
        `SELECT e.charge_pk AS pk FROM ach_entries e LEFT JOIN charges c ON c.pk = e.charge_pk
         WHERE c.pk IS NULL OR c.payment_type <> 'check' OR c.amount_cents <> e.amount_cents OR c.merchant_id <> e.merchant_id LIMIT ?`,
        [ROWS_MAX],
      ),
    ),
    cardsWithCheckPostings: pks(
      await tx.all(
        `SELECT DISTINCT c.pk FROM charges c JOIN postings p ON p.ref_type = 'charge' AND p.ref_id = ${castText(tx, 'c.pk')}
         WHERE c.payment_type = 'card' AND p.kind LIKE 'check.%' LIMIT ?`,
        [ROWS_MAX],
      ),
    ),
    checksNotMatchingTheirEntry: pks(
      await tx.all(
        `SELECT c.pk FROM charges c JOIN ach_entries e ON e.charge_pk = c.pk
         WHERE c.payment_type = 'check' AND (
              c.captured_cents <> CASE WHEN e.direction = 'credit' THEN 0 WHEN e.state = 'settled' THEN c.amount_cents WHEN e.state = 'returned' THEN c.refunded_cents ELSE 0 END
           OR c.status <> CASE e.state WHEN 'submitting' THEN 'pending' WHEN 'declined' THEN 'declined' WHEN 'failed' THEN 'failed' ELSE 'approved' END)
         ORDER BY c.pk LIMIT ?`,
        [ROWS_MAX],
      ),
    ),
    checksWithWrongRefundedTotal: pks(
      await tx.all(
        `SELECT c.pk FROM charges c WHERE c.kind = 'charge' AND c.payment_type = 'check' AND c.refunded_cents <>
           COALESCE((SELECT SUM(r.amount_cents) FROM charges r JOIN ach_entries e ON e.charge_pk = r.pk
                     WHERE r.parent_pk = c.pk AND r.kind = 'refund' AND e.state IN ${LIVE_CREDIT}), 0) LIMIT ?`,
        [ROWS_MAX],
      ),
    ),
  };
}

/**
 * Each entry's postings, summed by kind, against its state: a debit has its
 * accept exactly when it was accepted, its settle exactly when it settled
 * (settled_at_ms set, also when returned afterwards), its void exactly when
 * voided, its return exactly when returned (and says where the return was
 * taken from: ach_pending exactly when it had not settled); a credit has its
 * hold always and its release exactly when refused, voided or returned.
 * Neither has the other direction's postings, nor a card's.
 */
function entriesWithMismatchedPostings(tx: Tx): Promise<Array<{ pk: number; state: string }>> {
  const kindSum = (kind: string, alias: string) => `SUM(CASE WHEN kind = '${kind}' THEN amount_cents ELSE 0 END) AS ${alias}`;
  const totals = `SELECT ref_id, ${kindSum('check.accept', 'accept_c')}, ${kindSum('check.settle', 'settle_c')}, ${kindSum('check.void', 'void_c')},
      ${kindSum('check.return', 'return_c')}, ${kindSum('check.return_due', 'return_due_c')}, ${kindSum('check.returns_recover', 'recover_c')},
      ${kindSum('check.credit_hold', 'hold_c')}, ${kindSum('check.credit_release', 'release_c')},
      SUM(CASE WHEN kind LIKE 'check.%' THEN 0 ELSE amount_cents END) AS card_c
    FROM postings WHERE ref_type = 'charge' GROUP BY ref_id`;
  const got = (column: string) => `COALESCE(p.${column}, 0)`;
  const amountIf = (condition: string) => `CASE WHEN ${condition} THEN e.amount_cents ELSE 0 END`;
  return tx.all(
    `SELECT e.charge_pk AS pk, e.state FROM ach_entries e LEFT JOIN (${totals}) p ON p.ref_id = ${castText(tx, 'e.charge_pk')}
     WHERE ${got('card_c')} <> 0
        OR (e.direction = 'debit' AND (
              ${got('accept_c')} <> ${amountIf("e.state IN ('pending', 'voiding', 'originated', 'settled', 'returned', 'voided')")}
           OR ${got('settle_c')} <> ${amountIf('e.settled_at_ms IS NOT NULL')}
           OR ${got('void_c')} <> ${amountIf("e.state = 'voided'")}
           OR ${got('return_c')} + ${got('return_due_c')} <> ${amountIf("e.state = 'returned'")}
           OR (${got('return_due_c')} > 0) <> (COALESCE(e.returned_from, '') = 'ach_returns_due')
           OR (e.returned_from = 'available' AND ${got('return_c')} <> e.amount_cents)
           OR ${got('recover_c')} < 0 OR ${got('recover_c')} > ${amountIf('e.settled_at_ms IS NOT NULL')}
           OR ${got('hold_c')} + ${got('release_c')} <> 0
           OR (e.settled_at_ms IS NOT NULL AND e.state NOT IN ('settled', 'returned'))
           OR (e.state = 'returned' AND (e.returned_from IS NULL OR (e.returned_from = 'ach_pending') <> (e.settled_at_ms IS NULL)))
           OR (e.state <> 'returned' AND e.returned_from IS NOT NULL)))
        OR (e.direction = 'credit' AND (
              ${got('hold_c')} <> e.amount_cents
           OR ${got('release_c')} <> ${amountIf("e.state IN ('declined', 'failed', 'voided', 'returned')")}
           OR ${got('accept_c')} + ${got('settle_c')} + ${got('void_c')} + ${got('return_c')} + ${got('return_due_c')} + ${got('recover_c')} <> 0))
     ORDER BY e.charge_pk LIMIT ?`,
    [ROWS_MAX],
  );
}

function castText(tx: Tx, column: string): string {
  return tx.dialect === 'postgres' ? `${column}::text` : `CAST(${column} AS TEXT)`;
}

function sumsBy(rows: Array<Record<string, unknown>>): Map<string, number> {
  return new Map(rows.map((row) => [String(row.id), Number(row.total)]));
}

function pks(rows: Array<Record<string, unknown>>): number[] {
  return rows.map((row) => Number(row.pk));
}
