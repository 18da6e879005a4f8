// The queries behind `payrail ledger verify`: the facts the verifier
// compares, read from one snapshot. Each returns rows that are either totals
// to compare or records that break an invariant (bounded), so the verifier
// (flows/operations/ledger-verify.ts) only decides what counts as a problem.
import { type AchLedgerFacts, readAchLedgerFacts } from './ach/ledger-audit.ts';
import type { Db, Tx } from './db.ts';

/** Rows listed per kind of broken record; the verifier reports at most this many. */
export const AUDIT_ROWS_MAX = 100;

export interface AuditAccount {
  id: string;
  balance_cents: number;
  floor_cents: number | null;
  merchant_id: string | null;
  kind: string;
}

export interface LedgerFacts {
  readonly accounts: AuditAccount[];
  /** Sum of credits and of debits per account id, from the postings. */
  readonly credits: Map<string, number>;
  readonly debits: Map<string, number>;
  readonly postingCount: number;
  /** Postings that are not a positive movement between two accounts. */
  readonly malformedPostingIds: number[];
  /** More than one posting of one kind for one record. */
  readonly duplicatedPostings: Array<{ ref_type: string; ref_id: string; kind: string; n: number }>;
  readonly merchantIds: string[];
  /** Per merchant: the sum of its non-final transfers, its successful ones, and its card money (captured - voided - refunded - unmatched credits). */
  readonly inFlightByMerchant: Map<string, number>;
  readonly paidOutByMerchant: Map<string, number>;
  readonly cardPayinsByMerchant: Map<string, number>;
  readonly transfersWithMismatchedPostings: Array<{ pk: number; state: number }>;
  readonly chargesWithMismatchedPostings: Array<{ pk: number; status: string }>;
  readonly orphanPostings: Array<{ id: number; ref_type: string; ref_id: string }>;
  /** Keys the database no longer checks on each insert (migration 011): transfers of no merchant, history of no transfer. */
  readonly transfersOfUnknownMerchants: Array<{ pk: number; merchant_id: string }>;
  readonly historyOfUnknownTransfers: Array<{ id: number; transfer_pk: number }>;
  readonly chargesWithWrongLinkedTotal: number[];
  /** Card charges whose refunded amount is not the sum of their refunds that were not declined or failed. */
  readonly chargesWithWrongRefundedTotal: number[];
  /** Checks and their ACH entries (store/ach/ledger-audit.ts). */
  readonly ach: AchLedgerFacts;
}

/** Reads every fact on one snapshot, so reads made at different moments cannot disagree. */
export function readLedgerFacts(db: Db): Promise<LedgerFacts> {
  return db.readSnapshot(async (tx) => ({
    accounts: await tx.all<AuditAccount>('SELECT id, balance_cents, floor_cents, merchant_id, kind FROM accounts'),
    credits: sumsBy(await tx.all('SELECT credit_account_id AS id, SUM(amount_cents) AS total FROM postings GROUP BY credit_account_id')),
    debits: sumsBy(await tx.all('SELECT debit_account_id AS id, SUM(amount_cents) AS total FROM postings GROUP BY debit_account_id')),
    postingCount: Number((await tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM postings'))?.n ?? 0),
    malformedPostingIds: (
      await tx.all<{ id: number }>('SELECT id FROM postings WHERE amount_cents <= 0 OR debit_account_id = credit_account_id LIMIT ?', [AUDIT_ROWS_MAX])
    ).map((row) => Number(row.id)),
    duplicatedPostings: await tx.all('SELECT ref_type, ref_id, kind, COUNT(*) AS n FROM postings GROUP BY ref_type, ref_id, kind HAVING COUNT(*) > 1 LIMIT ?', [
      AUDIT_ROWS_MAX,
    ]),
    merchantIds: (await tx.all<{ id: string }>('SELECT id FROM merchants')).map((row) => row.id),
    inFlightByMerchant: sumsBy(await tx.all('SELECT merchant_id AS id, SUM(amount_cents) AS total FROM transfers WHERE final = 0 GROUP BY merchant_id')),
    // A confirmed reversal took the payout back (the transfer stays 60): its amount is available again, no longer paid out.
    paidOutByMerchant: sumsBy(
      await tx.all(
        "SELECT merchant_id AS id, SUM(amount_cents) AS total FROM transfers WHERE state = 60 AND (reversal IS NULL OR reversal <> 'confirmed') GROUP BY merchant_id",
      ),
    ),
    cardPayinsByMerchant: sumsBy(
      await tx.all(
        // An unmatched credit (a refund of no charge) holds its amount from the merchant like a refund, until declined or failed.
        `SELECT merchant_id AS id, SUM(CASE WHEN kind = 'charge' THEN captured_cents - voided_cents - refunded_cents
           WHEN parent_pk IS NULL AND status IN ('pending', 'approved') THEN -amount_cents ELSE 0 END) AS total
         FROM charges WHERE payment_type = 'card' AND (kind = 'charge' OR parent_pk IS NULL) GROUP BY merchant_id`,
      ),
    ),
    transfersWithMismatchedPostings: await transfersWithMismatchedPostings(tx),
    chargesWithMismatchedPostings: await chargesWithMismatchedPostings(tx),
    orphanPostings: await tx.all(
      `SELECT p.id, p.ref_type, p.ref_id FROM postings p
       WHERE (p.ref_type = 'transfer' AND NOT EXISTS (SELECT 1 FROM transfers t WHERE t.pk = ${refAsPk(tx)}))
          OR (p.ref_type = 'charge' AND NOT EXISTS (SELECT 1 FROM charges c WHERE c.pk = ${refAsPk(tx)}))
       LIMIT ?`,
      [AUDIT_ROWS_MAX],
    ),
    transfersOfUnknownMerchants: await tx.all(
      'SELECT t.pk, t.merchant_id FROM transfers t WHERE NOT EXISTS (SELECT 1 FROM merchants m WHERE m.id = t.merchant_id) LIMIT ?',
      [AUDIT_ROWS_MAX],
    ),
    historyOfUnknownTransfers: await tx.all(
      'SELECT e.id, e.transfer_pk FROM transfer_events e WHERE NOT EXISTS (SELECT 1 FROM transfers t WHERE t.pk = e.transfer_pk) LIMIT ?',
      [AUDIT_ROWS_MAX],
    ),
    chargesWithWrongLinkedTotal: (
      await tx.all<{ pk: number }>(
        'SELECT c.pk FROM charges c WHERE c.linked_cents <> COALESCE((SELECT SUM(l.amount_cents) FROM transfer_links l WHERE l.charge_pk = c.pk), 0) LIMIT ?',
        [AUDIT_ROWS_MAX],
      )
    ).map((row) => Number(row.pk)),
    chargesWithWrongRefundedTotal: (
      await tx.all<{ pk: number }>(
        `SELECT c.pk FROM charges c WHERE c.kind = 'charge' AND c.payment_type = 'card' AND c.refunded_cents <>
           COALESCE((SELECT SUM(r.amount_cents) FROM charges r WHERE r.parent_pk = c.pk AND r.kind = 'refund' AND r.status IN ('pending', 'approved')), 0) LIMIT ?`,
        [AUDIT_ROWS_MAX],
      )
    ).map((row) => Number(row.pk)),
    ach: await readAchLedgerFacts(tx),
  }));
}

/**
 * Each card charge's postings add up to its record (docs/api-decisions.md section 10): its capture (at
 * approval, or later) equals what it captured, its void holds less their
 * releases equal what its void took back; each refund holds its amount once,
 * and releases it exactly when the processor declined or failed it.
 */
function chargesWithMismatchedPostings(tx: Tx): Promise<Array<{ pk: number; status: string }>> {
  const sum = (kinds: string) =>
    `COALESCE((SELECT SUM(p.amount_cents) FROM postings p WHERE p.ref_type = 'charge' AND p.ref_id = ${castText(tx, 'c.pk')} AND p.kind IN (${kinds})), 0)`;
  return tx.all(
    `SELECT c.pk, c.status FROM charges c
     WHERE c.payment_type = 'card' AND ((c.kind = 'charge' AND (${sum("'charge.approve', 'charge.capture'")} <> c.captured_cents
              OR ${sum("'charge.void'")} - ${sum("'charge.void_release'")} <> c.voided_cents
              OR ${sum("'refund.debit', 'refund.release'")} <> 0))
        OR (c.kind = 'refund' AND (${sum("'refund.debit'")} <> c.amount_cents
              OR ${sum("'refund.release'")} <> CASE WHEN c.status IN ('declined', 'failed') THEN c.amount_cents ELSE 0 END
              OR ${sum("'charge.approve', 'charge.capture', 'charge.void', 'charge.void_release'")} <> 0)))
     LIMIT ?`,
    [AUDIT_ROWS_MAX],
  );
}

/**
 * Each transfer has its execute posting, and a final one matching its final
 * state (and no other); a paid-out transfer has its reversal's posting
 * exactly when its reversal was confirmed.
 */
function transfersWithMismatchedPostings(tx: Tx): Promise<Array<{ pk: number; state: number }>> {
  const has = (kind: string) => `EXISTS (SELECT 1 FROM postings p WHERE p.ref_type = 'transfer' AND p.ref_id = ${castText(tx, 't.pk')} AND p.kind = '${kind}')`;
  return tx.all(
    `SELECT t.pk, t.state FROM transfers t
     WHERE NOT ${has('transfer.execute')}
        OR (t.state = 60 AND NOT ${has('transfer.succeed')})
        OR (t.state = 80 AND NOT ${has('transfer.fail')})
        OR (t.state <> 60 AND ${has('transfer.succeed')})
        OR (t.state <> 80 AND ${has('transfer.fail')})
        OR (t.reversal = 'confirmed' AND (t.state <> 60 OR NOT ${has('transfer.reverse')}))
        OR ((t.reversal IS NULL OR t.reversal <> 'confirmed') AND ${has('transfer.reverse')})
     LIMIT ?`,
    [AUDIT_ROWS_MAX],
  );
}

/**
 * A posting's ref_id as the integer key of its record, so the lookup uses the
 * primary key (casting the key to text instead would scan every row for every
 * posting). Non-numeric refs become NULL (PostgreSQL) or 0 (SQLite): no match.
 */
function refAsPk(tx: Tx): string {
  return tx.dialect === 'postgres' ? "CASE WHEN p.ref_id ~ '^[0-9]{1,18}$' THEN p.ref_id::bigint END" : 'CAST(p.ref_id AS INTEGER)';
}

function castText(tx: Tx, column: string): string {
  return tx.dialect === 'postgres' ? `${column}::text` : `CAST(${column} AS TEXT)`;
}

function sumsBy(rows: Array<Record<string, unknown>>): Map<string, number> {
  return new Map(rows.map((row) => [String(row.id), Number(row.total)]));
}
