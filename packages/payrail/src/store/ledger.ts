// Ledger writes. The floor check is part of the UPDATE itself, so two
// concurrent debits can never both pass it: the database decides atomically,
// not a read-then-write in JavaScript.
import { assertPosting, POSTING_KINDS, type PostingInput } from '../domain/ledger.ts';
import type { Tx } from './db.ts';
import { insertRows } from './multi-row.ts';

export type PostOutcome = 'posted' | 'below_floor';

export async function post(tx: Tx, input: PostingInput): Promise<PostOutcome> {
  assertPosting(input);
  if (tx.dialect === 'postgres') return postInOneStatement(tx, input);
  // Rows are always locked in the order of their ids, so two transactions
  // moving money between the same accounts in opposite directions (an
  // execute and a refund) cannot deadlock on PostgreSQL.
  if (input.debitAccountId < input.creditAccountId) {
    if (!(await debit(tx, input))) return 'below_floor';
    await credit(tx, input.creditAccountId, input.amountCents);
  } else {
    await credit(tx, input.creditAccountId, input.amountCents);
    if (!(await debit(tx, input))) {
      // Take the credit back in the same transaction: nothing was posted.
      await credit(tx, input.creditAccountId, -input.amountCents);
      return 'below_floor';
    }
  }
  await tx.run(
    'INSERT INTO postings (debit_account_id, credit_account_id, amount_cents, kind, merchant_id, ref_type, ref_id, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    [input.debitAccountId, input.creditAccountId, input.amountCents, input.kind, input.merchantId, POSTING_KINDS[input.kind].refType, input.refId, input.nowMs],
  );
  return 'posted';
}

/**
 * PostgreSQL: the same posting in one statement, so one round trip instead
 * of three. That matters because a transaction holds the two balance rows'
 * locks from its posting until its COMMIT, and every card operation of the
 * merchant (and every execute) waits for those rows: each round trip inside
 * that window costs the others the time the process's busy event loop takes
 * to send the next message. Both rows are locked first, in id order (as
 * above); the floor is checked on the locked debit row; one UPDATE moves
 * both and the posting is inserted only when both moved.
 */
const POST_SQL = `WITH locked AS MATERIALIZED (
  SELECT id, balance_cents, floor_cents FROM accounts WHERE id IN (?::text, ?::text) ORDER BY id FOR UPDATE
), allowed AS MATERIALIZED (
  SELECT 1 AS one FROM locked d
  WHERE d.id = ?::text AND (d.floor_cents IS NULL OR d.balance_cents - ?::bigint >= d.floor_cents) AND (SELECT COUNT(*) FROM locked) = 2
), moved AS (
  UPDATE accounts SET balance_cents = balance_cents + CASE WHEN id = ?::text THEN -?::bigint ELSE ?::bigint END
  WHERE id IN (?::text, ?::text) AND EXISTS (SELECT 1 FROM allowed)
), posting AS (
  INSERT INTO postings (debit_account_id, credit_account_id, amount_cents, kind, merchant_id, ref_type, ref_id, created_at_ms)
  SELECT ?::text, ?::text, ?::bigint, ?::text, ?::text, ?::text, ?::text, ?::bigint FROM allowed
)
SELECT (SELECT COUNT(*) FROM locked) AS found, (SELECT COUNT(*) FROM allowed) AS allowed`;

async function postInOneStatement(tx: Tx, input: PostingInput): Promise<PostOutcome> {
  const d = input.debitAccountId;
  const c = input.creditAccountId;
  const cents = input.amountCents;
  const row = await tx.get<{ found: number | string; allowed: number | string }>(POST_SQL, [
    d,
    c,
    d,
    cents,
    d,
    cents,
    cents,
    d,
    c,
    d,
    c,
    cents,
    input.kind,
    input.merchantId,
    POSTING_KINDS[input.kind].refType,
    input.refId,
    input.nowMs,
  ]);
  if (Number(row?.found) !== 2) throw new Error(`unknown account ${d} or ${c}`);
  return Number(row?.allowed) === 1 ? 'posted' : 'below_floor';
}

/** The conditional debit: false when it would take the account below its floor. */
async function debit(tx: Tx, input: PostingInput): Promise<boolean> {
  const debited = await tx.run(
    'UPDATE accounts SET balance_cents = balance_cents - ? WHERE id = ? AND (floor_cents IS NULL OR balance_cents - ? >= floor_cents)',
    [input.amountCents, input.debitAccountId, input.amountCents],
  );
  if (debited.changes === 1) return true;
  const exists = await tx.get('SELECT 1 AS one FROM accounts WHERE id = ?', [input.debitAccountId]);
  if (exists === undefined) throw new Error(`unknown debit account ${input.debitAccountId}`);
  return false;
}

async function credit(tx: Tx, accountId: string, amountCents: number): Promise<void> {
  const credited = await tx.run('UPDATE accounts SET balance_cents = balance_cents + ? WHERE id = ?', [amountCents, accountId]);
  if (credited.changes !== 1) throw new Error(`unknown credit account ${accountId}`);
}

export async function createAccount(
  tx: Tx,
  account: { id: string; merchantId: string | null; kind: string; floorCents: number | null; nowMs: number },
): Promise<void> {
  await tx.run(
    'INSERT INTO accounts (id, merchant_id, kind, currency, balance_cents, floor_cents, created_at_ms) VALUES (?, ?, ?, ?, 0, ?, ?) ON CONFLICT (id) DO NOTHING',
    [account.id, account.merchantId, account.kind, 'USD', account.floorCents, account.nowMs],
  );
}

export interface AccountRow {
  id: string;
  merchant_id: string | null;
  kind: string;
  balance_cents: number;
  floor_cents: number | null;
}

export async function getAccount(tx: Tx, id: string): Promise<AccountRow | undefined> {
  return tx.get<AccountRow>('SELECT id, merchant_id, kind, balance_cents, floor_cents FROM accounts WHERE id = ?', [id]);
}

/** Moves an account's floor; false (nothing changed) when the balance is already below the new floor. */
export async function setFloor(tx: Tx, accountId: string, floorCents: number): Promise<boolean> {
  const changed = await tx.run('UPDATE accounts SET floor_cents = ? WHERE id = ? AND balance_cents >= ?', [floorCents, accountId, floorCents]);
  return changed.changes === 1;
}

/**
 * Posts a batch of postings, for a worker that records many movements in one
 * transaction. Each account's balance moves once, by the sum of its debits
 * and credits in the batch (one UPDATE per account instead of two per
 * posting), and the postings go in by multi-row INSERT. A floor is checked
 * against the account's net change: nothing in between is visible to
 * anyone, since the whole batch commits at once.
 *
 * The postings go in first and the balances move last: on PostgreSQL a
 * balance row stays locked from its update to the commit, and the
 * merchant's balance rows are the ones every execute updates too, so they
 * are held for as little as the end of the transaction. `below_floor`: an
 * account would end below its floor; the postings are written and some
 * balances may have moved, so the caller must fail its transaction (throw)
 * to take all of it back.
 */
export async function postBatch(tx: Tx, inputs: readonly PostingInput[]): Promise<PostOutcome> {
  if (inputs.length === 0) return 'posted';
  const netCents = new Map<string, number>();
  for (const input of inputs) {
    assertPosting(input);
    netCents.set(input.debitAccountId, (netCents.get(input.debitAccountId) ?? 0) - input.amountCents);
    netCents.set(input.creditAccountId, (netCents.get(input.creditAccountId) ?? 0) + input.amountCents);
  }
  // Locked in the order of their ids, as post() does, so batches and single postings cannot deadlock.
  const accountIds = [...netCents.keys()].sort();
  // Sent together, in this order (PostgreSQL pipelines them on the one connection).
  const [, ...moved] = await Promise.all([
    insertRows(
      tx,
      'INSERT INTO postings (debit_account_id, credit_account_id, amount_cents, kind, merchant_id, ref_type, ref_id, created_at_ms)',
      8,
      inputs.map((input) => [
        input.debitAccountId,
        input.creditAccountId,
        input.amountCents,
        input.kind,
        input.merchantId,
        POSTING_KINDS[input.kind].refType,
        input.refId,
        input.nowMs,
      ]),
    ),
    ...accountIds.map((id) => moveBalance(tx, id, netCents.get(id)!)),
  ]);
  return moved.every((ok) => ok) ? 'posted' : 'below_floor';
}

/** Adds `deltaCents` to an account; a decrease is refused (false) when it would take the account below its floor. */
async function moveBalance(tx: Tx, accountId: string, deltaCents: number): Promise<boolean> {
  if (deltaCents >= 0) {
    await credit(tx, accountId, deltaCents);
    return true;
  }
  const debited = await tx.run(
    'UPDATE accounts SET balance_cents = balance_cents - ? WHERE id = ? AND (floor_cents IS NULL OR balance_cents - ? >= floor_cents)',
    [-deltaCents, accountId, -deltaCents],
  );
  if (debited.changes === 1) return true;
  const exists = await tx.get('SELECT 1 AS one FROM accounts WHERE id = ?', [accountId]);
  if (exists === undefined) throw new Error(`unknown debit account ${accountId}`);
  return false;
}
