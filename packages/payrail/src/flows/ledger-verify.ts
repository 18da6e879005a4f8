// The independent side of the ledger's invariants. The write path keeps
// cached balances and refuses to pass a floor; this recomputes everything
// from the immutable postings and the business records and reports each
// difference. `payrail ledger verify` exits non-zero when any is found.
// It reads one snapshot, so it can run while traffic moves money: reads
// spread over several moments would compare balances and postings of
// different moments and report differences that do not exist.
import type { Db, Tx } from '../store/db.ts';

export interface VerifyReport {
  readonly ok: boolean;
  readonly accounts: number;
  readonly postings: number;
  readonly problems: string[];
}

/** A report never lists more than this many problems; the count says the rest. */
const PROBLEMS_LISTED_MAX = 100;

export async function verifyLedger(db: Db): Promise<VerifyReport> {
  return db.readSnapshot(async (tx) => {
    const problems: string[] = [];
    const report = (text: string) => {
      if (problems.length < PROBLEMS_LISTED_MAX) problems.push(text);
    };
    const accounts = await tx.all<{ id: string; balance_cents: number; floor_cents: number | null; merchant_id: string | null; kind: string }>(
      'SELECT id, balance_cents, floor_cents, merchant_id, kind FROM accounts',
    );
    const credits = sumsBy(await tx.all<{ id: string; total: number }>('SELECT credit_account_id AS id, SUM(amount_cents) AS total FROM postings GROUP BY credit_account_id'));
    const debits = sumsBy(await tx.all<{ id: string; total: number }>('SELECT debit_account_id AS id, SUM(amount_cents) AS total FROM postings GROUP BY debit_account_id'));
    let totalCents = 0;
    const balances = new Map<string, number>();
    for (const account of accounts) {
      const derived = (credits.get(account.id) ?? 0) - (debits.get(account.id) ?? 0);
      balances.set(account.id, account.balance_cents);
      totalCents += account.balance_cents;
      if (derived !== account.balance_cents) {
        report(`account ${account.id}: cached balance ${account.balance_cents} != ${derived} from postings`);
      }
      if (account.floor_cents !== null && account.balance_cents < account.floor_cents) {
        report(`account ${account.id}: balance ${account.balance_cents} is below its floor ${account.floor_cents}`);
      }
    }
    for (const id of new Set([...credits.keys(), ...debits.keys()])) {
      if (!balances.has(id)) report(`postings reference unknown account ${id}`);
    }
    if (totalCents !== 0) report(`balances sum to ${totalCents}, not 0`);
    const bad = await tx.all<{ id: number }>('SELECT id FROM postings WHERE amount_cents <= 0 OR debit_account_id = credit_account_id');
    for (const row of bad) report(`posting ${row.id} is not a positive movement between two accounts`);
    const postingCount = await tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM postings');
    const duplicated = await tx.all<{ ref_type: string; ref_id: string; kind: string; n: number }>(
      'SELECT ref_type, ref_id, kind, COUNT(*) AS n FROM postings GROUP BY ref_type, ref_id, kind HAVING COUNT(*) > 1',
    );
    for (const row of duplicated) report(`${row.ref_type} ${row.ref_id} has ${row.n} postings of kind ${row.kind}`);

    await reconcileBusinessRecords(tx, balances, report);
    return { ok: problems.length === 0, accounts: accounts.length, postings: Number(postingCount?.n ?? 0), problems };
  });
}

/** The ledger must agree with the transfers and charges it moved money for. */
async function reconcileBusinessRecords(tx: Tx, balances: Map<string, number>, report: (text: string) => void): Promise<void> {
  const merchants = await tx.all<{ id: string }>('SELECT id FROM merchants');
  const inFlight = sumsBy(await tx.all<{ id: string; total: number }>('SELECT merchant_id AS id, SUM(amount_cents) AS total FROM transfers WHERE final = 0 GROUP BY merchant_id'));
  const paidOut = sumsBy(await tx.all<{ id: string; total: number }>('SELECT merchant_id AS id, SUM(amount_cents) AS total FROM transfers WHERE state = 60 GROUP BY merchant_id'));
  const cardPayins = sumsBy(await tx.all<{ id: string; total: number }>("SELECT merchant_id AS id, SUM(amount_cents) AS total FROM charges WHERE status = 'approved' GROUP BY merchant_id"));
  for (const { id } of merchants) {
    const check = (kind: string, expected: number, sign: 1 | -1) => {
      const actual = (balances.get(`${id}:${kind}`) ?? 0) * sign;
      if (actual !== expected) report(`merchant ${id}: ${kind} ledger ${actual} != ${expected} from records`);
    };
    check('in_flight', inFlight.get(id) ?? 0, 1);
    check('paid_out', paidOut.get(id) ?? 0, 1);
    check('card_payins', cardPayins.get(id) ?? 0, -1);
  }
  // Each transfer has its execute posting, and a final one matching its final state.
  const transferGaps = await tx.all<{ pk: number; state: number; kinds: string | null }>(
    `SELECT t.pk, t.state, (SELECT COUNT(*) FROM postings p WHERE p.ref_type = 'transfer' AND p.ref_id = ${castText(tx, 't.pk')} AND p.kind = 'transfer.execute') AS kinds
     FROM transfers t
     WHERE NOT EXISTS (SELECT 1 FROM postings p WHERE p.ref_type = 'transfer' AND p.ref_id = ${castText(tx, 't.pk')} AND p.kind = 'transfer.execute')
        OR (t.state = 60 AND NOT EXISTS (SELECT 1 FROM postings p WHERE p.ref_type = 'transfer' AND p.ref_id = ${castText(tx, 't.pk')} AND p.kind = 'transfer.succeed'))
        OR (t.state = 80 AND NOT EXISTS (SELECT 1 FROM postings p WHERE p.ref_type = 'transfer' AND p.ref_id = ${castText(tx, 't.pk')} AND p.kind = 'transfer.fail'))
        OR (t.state <> 60 AND EXISTS (SELECT 1 FROM postings p WHERE p.ref_type = 'transfer' AND p.ref_id = ${castText(tx, 't.pk')} AND p.kind = 'transfer.succeed'))
        OR (t.state <> 80 AND EXISTS (SELECT 1 FROM postings p WHERE p.ref_type = 'transfer' AND p.ref_id = ${castText(tx, 't.pk')} AND p.kind = 'transfer.fail'))
     LIMIT 100`,
  );
  for (const row of transferGaps) report(`transfer ${row.pk} (state ${row.state}) has postings that do not match its state`);
  const chargeGaps = await tx.all<{ pk: number; status: string }>(
    `SELECT c.pk, c.status FROM charges c
     WHERE (c.status = 'approved') <> EXISTS (SELECT 1 FROM postings p WHERE p.ref_type = 'charge' AND p.ref_id = ${castText(tx, 'c.pk')} AND p.kind = 'charge.approve')
     LIMIT 100`,
  );
  for (const row of chargeGaps) report(`charge ${row.pk} (${row.status}) has postings that do not match its status`);
  const orphans = await tx.all<{ id: number; ref_type: string; ref_id: string }>(
    `SELECT p.id, p.ref_type, p.ref_id FROM postings p
     WHERE (p.ref_type = 'transfer' AND NOT EXISTS (SELECT 1 FROM transfers t WHERE t.pk = ${refAsPk(tx)}))
        OR (p.ref_type = 'charge' AND NOT EXISTS (SELECT 1 FROM charges c WHERE c.pk = ${refAsPk(tx)}))
     LIMIT 100`,
  );
  for (const row of orphans) report(`posting ${row.id} names ${row.ref_type} ${row.ref_id}, which does not exist`);
  const overLinked = await tx.all<{ pk: number }>(
    'SELECT c.pk FROM charges c WHERE c.linked_cents <> COALESCE((SELECT SUM(l.amount_cents) FROM transfer_links l WHERE l.charge_pk = c.pk), 0) LIMIT 100',
  );
  for (const row of overLinked) report(`charge ${row.pk}: linked amount does not equal the sum of its transfer links`);
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

function sumsBy(rows: Array<{ id: string; total: number }>): Map<string, number> {
  return new Map(rows.map((row) => [row.id, Number(row.total)]));
}
