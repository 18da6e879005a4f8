// The executes of one moment on PostgreSQL, written by one statement (Db.batched):
// PostgreSQL's form of the execute rule (execute-rule.ts has it statement by statement).
//
// Every execute of a merchant debits the same available-balance row, so the
// batches that carry executes serialize on that row's lock, and what the
// lock waits for is the server's work on the batch. One statement per
// execute costs the server a statement's fixed work (bind, plan, executor
// start, a CTE chain) per execute; one statement for the whole batch, its
// rows passed as arrays, pays that once and lets each table take its rows in
// one insert. And run by Db.batched, the statement is its own transaction:
// one round trip, and the balance row stays locked only while the server
// runs it and flushes its commit, not across the round trips of a BEGIN ...
// COMMIT block in which the process's event loop, busy with requests, takes
// its time to send the next message. (SQLite has no round trips and one
// writer: writing the executes of a group commit table by table instead of
// execute by execute was measured to gain nothing there, so it has no
// Db.batched and writes each execute in its own operation.)
//
// What each item gets is what running them one after another in batch order
// would give, or `alone`: the caller then writes that item by itself in a
// transaction of its own (execute-rule.ts), which decides it exactly.
// That is the case for the rare items the batch does not decide: an id
// given twice in the batch, an item the floor refused (alone, a taken id is
// reported before the funds, as the single write does) and every later item
// of its account (the running sum counted money that was not taken), an
// item whose accounts are missing (written alone, it says which), and an
// item planned on assumptions the store no longer bears out.
//
// Assumptions: an execute may be planned without reading the store first
// (execute.ts), on the merchant's payouts-must-link rule as
// last seen and on there being no quote for its id. The item carries them,
// and the statement accepts it only if the merchant's row still says that
// rule and, when it assumed no quote, no quote exists for the id; otherwise
// nothing of it is written and it is `alone`.
import { POSTING_KINDS } from '../../domain/ledger.ts';
import { STATE } from '../../domain/transfer-states.ts';
import type { SqlValue, Tx } from '../db.ts';
import { newEventDeliveriesSql } from '../events.ts';
import type { ExecuteWrite } from './execute-rule.ts';
import { NEW_TRANSFER_COLUMNS, newTransferValues } from '../transfers.ts';

/** What an execute was planned on, checked by the statement (see the head of this file). */
export interface ExecuteAssumptions {
  /** The merchant's payouts_must_link the plan used (0 or 1). */
  readonly payoutsMustLink: number;
  /** True when the plan assumed there is no quote for the transfer's id. */
  readonly noQuote: boolean;
}

export type BatchedExecute = ExecuteWrite & { readonly assumed: ExecuteAssumptions };

export type BatchOutcome = { readonly kind: 'recorded'; readonly pk: number } | { readonly kind: 'duplicate' } | { readonly kind: 'alone' };

/**
 * Accounts are locked in id order (as ledger.post does), before anything is
 * written. `judged` runs each debit account's items in batch order against
 * its locked balance and floor; an item is accepted when it fits and no
 * earlier item of its account was refused (after a refusal the running sum
 * would count money that was not taken). Accepted items are inserted with
 * ON CONFLICT DO NOTHING: one another transaction inserted meanwhile is a
 * duplicate, and since only the inserted items (`made`) are posted and
 * moved, the balances stay exact. Each account moves once, by its net change
 * (PostgreSQL applies at most one update per row and statement).
 */
const BATCH_SQL = `WITH input AS MATERIALIZED (
  SELECT * FROM unnest(?::int[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int8[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int8[], ?::text[],
    ?::int8[], ?::text[], ?::int8[], ?::int8[], ?::int8[], ?::int8[], ?::int8[], ?::text[], ?::text[], ?::text[], ?::int8[], ?::text[], ?::text[], ?::text[],
    ?::int[], ?::int[])
    AS i (ord, merchant_id, id, sender_phone, receiver_phone, amount_cents, service, receiver_country, receiver_currency, fx_rate, received_minor, attributes_json,
      substate, waiting_for, next_run_at_ms, invitation_expires_at_ms, gateway_charge_pk, created_at_ms, updated_at_ms, payout_connector, debit_account_id, credit_account_id,
      posting_cents, posting_kind, ref_type, note, assumed_must_link, assumed_no_quote)
), outbox_input AS (
  SELECT * FROM unnest(?::int[], ?::int[], ?::text[], ?::text[]) AS e (ord, n, type, data_json)
), locked AS MATERIALIZED (
  SELECT id, balance_cents, floor_cents FROM accounts WHERE id = ANY (?::text[]) ORDER BY id FOR UPDATE
), first_of_id AS (
  SELECT DISTINCT ON (merchant_id, id) ord FROM input ORDER BY merchant_id, id, ord
), borne_out AS (
  SELECT i.ord FROM input i JOIN merchants m ON m.id = i.merchant_id
  WHERE m.payouts_must_link = i.assumed_must_link
    AND NOT (i.assumed_no_quote = 1 AND EXISTS (SELECT 1 FROM quotes q WHERE q.merchant_id = i.merchant_id AND q.transfer_id = i.id))
), running AS (
  SELECT i.ord, i.debit_account_id,
    (d.id IS NOT NULL AND c.id IS NOT NULL) AS accounts_found,
    (d.floor_cents IS NULL OR d.balance_cents - sum(i.posting_cents) OVER (PARTITION BY i.debit_account_id ORDER BY i.ord) >= d.floor_cents) AS fits
  FROM input i JOIN first_of_id f ON f.ord = i.ord JOIN borne_out b ON b.ord = i.ord
  LEFT JOIN locked d ON d.id = i.debit_account_id LEFT JOIN locked c ON c.id = i.credit_account_id
), judged AS (
  SELECT r.*, bool_and(r.fits) OVER (PARTITION BY r.debit_account_id ORDER BY r.ord ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_fit
  FROM running r
), accepted AS (
  SELECT i.* FROM input i JOIN judged j ON j.ord = i.ord WHERE j.accounts_found AND j.fits AND j.earlier_fit IS NOT FALSE
), created AS (
  INSERT INTO transfers (${NEW_TRANSFER_COLUMNS})
  SELECT merchant_id, id, sender_phone, receiver_phone, amount_cents, service, receiver_country, receiver_currency, fx_rate, received_minor, attributes_json, 0,
    substate, waiting_for, next_run_at_ms, invitation_expires_at_ms, gateway_charge_pk, created_at_ms, updated_at_ms, payout_connector
  FROM accepted ORDER BY ord
  ON CONFLICT (merchant_id, id) DO NOTHING RETURNING pk, merchant_id, id
), made AS (
  SELECT a.*, c.pk FROM accepted a JOIN created c ON c.merchant_id = a.merchant_id AND c.id = a.id
), moved AS (
  UPDATE accounts SET balance_cents = accounts.balance_cents + m.delta
  FROM (
    SELECT account_id, sum(delta) AS delta FROM (
      SELECT debit_account_id AS account_id, -posting_cents AS delta FROM made
      UNION ALL SELECT credit_account_id, posting_cents FROM made
    ) AS d GROUP BY account_id
  ) AS m
  WHERE accounts.id = m.account_id AND accounts.id = ANY (?::text[])
), posting AS (
  INSERT INTO postings (debit_account_id, credit_account_id, amount_cents, kind, merchant_id, ref_type, ref_id, created_at_ms)
  SELECT debit_account_id, credit_account_id, posting_cents, posting_kind, merchant_id, ref_type, pk::text, created_at_ms FROM made ORDER BY ord
), history AS (
  INSERT INTO transfer_events (transfer_pk, state, substate, note, at_ms)
  SELECT pk, ${STATE.new}, substate, note, created_at_ms FROM made ORDER BY ord
), outbox AS (
  INSERT INTO events (merchant_id, type, data_json, created_at_ms, fanned_out)
  SELECT m.merchant_id, e.type, e.data_json, m.created_at_ms, 1
  FROM made m JOIN outbox_input e ON e.ord = m.ord ORDER BY m.ord, e.n
  RETURNING pk, merchant_id, type, created_at_ms
), deliveries AS (
  ${newEventDeliveriesSql('outbox')}
)
SELECT i.ord, a.ord IS NOT NULL AS accepted, m.pk
FROM input i
LEFT JOIN accepted a ON a.ord = i.ord
LEFT JOIN made m ON m.ord = i.ord
ORDER BY i.ord`;

/** The input's columns: ord, a new transfer's values (newTransferValues), then the posting's, the history note and the assumptions. */
const DEBIT_COLUMN = 20;
const INPUT_COLUMNS = DEBIT_COLUMN + 8;

interface ResultRow {
  ord: number;
  accepted: boolean;
  pk: number | string | null;
}

/** Writes `writes` with one statement; one outcome per write, in order. */
export async function recordExecutes(tx: Tx, writes: readonly BatchedExecute[]): Promise<BatchOutcome[]> {
  const columns: SqlValue[][] = Array.from({ length: INPUT_COLUMNS }, () => []);
  const outbox: SqlValue[][] = [[], [], [], []];
  writes.forEach((w, ord) => {
    const t = w.transfer;
    const p = w.posting;
    const row: SqlValue[] = [
      ord,
      ...newTransferValues(t),
      p.debitAccountId,
      p.creditAccountId,
      p.amountCents,
      p.kind,
      POSTING_KINDS[p.kind].refType,
      w.note,
      w.assumed.payoutsMustLink,
      w.assumed.noQuote ? 1 : 0,
    ];
    row.forEach((value, c) => {
      columns[c]!.push(value);
    });
    w.events.forEach((e, n) => {
      outbox[0]!.push(ord);
      outbox[1]!.push(n);
      outbox[2]!.push(e.type);
      outbox[3]!.push(e.dataJson);
    });
  });
  // Arrays travel as parameters (the driver encodes them); the Tx contract's
  // SqlValue does not name arrays, which only this PostgreSQL-only statement passes.
  // The accounts by their key, not a scan: the planner knows nothing of the arrays' contents.
  const accounts = [...new Set([...(columns[DEBIT_COLUMN] as string[]), ...(columns[DEBIT_COLUMN + 1] as string[])])].sort();
  const rows = await tx.all<ResultRow>(BATCH_SQL, [...columns, ...outbox, accounts, accounts] as unknown as SqlValue[]);
  if (rows.length !== writes.length) throw new Error(`execute batch: ${rows.length} results for ${writes.length} executes`);
  return rows.map((r): BatchOutcome => {
    if (r.pk !== null) return { kind: 'recorded', pk: Number(r.pk) };
    return r.accepted ? { kind: 'duplicate' } : { kind: 'alone' };
  });
}
