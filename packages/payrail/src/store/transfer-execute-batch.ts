// The executes of one moment, written together (Db.batched).
//
// PostgreSQL: one statement. Every execute of a merchant debits the same
// available-balance row, so the batches that carry executes serialize on
// that row's lock, and what the lock waits for is the server's work on the
// batch. One statement per execute costs the server a statement's fixed
// work (bind, plan, executor start, a CTE chain) per execute; one statement
// for the whole batch, its rows passed as arrays, pays that once and lets
// each table take its rows in one insert. And run by Db.batched, the
// statement is its own transaction: one round trip, and the balance row
// stays locked only while the server runs it and flushes its commit, not
// across the round trips of a BEGIN ... COMMIT block in which the process's
// event loop, busy with requests, takes its time to send the next message.
//
// SQLite: one operation of a group commit, its statements one table after
// another (the transfers, then each balance once by its net change, the
// postings, history rows and events as multi-row inserts). The engine's
// pages of each table and index stay in the processor's caches from one row
// to the next, instead of being evicted by the request handling that ran
// between two operations: measured in isolation, a transfer insert costs
// about 6 us when rows follow each other and 18 us when 8 MB of other
// memory is touched between them, which is what serving requests does. The
// writer is the only one, so the floor can be judged in JavaScript from the
// balances read in the same transaction.
//
// What each item gets is what running them one after another in batch order
// would give, or `alone`: the caller then writes that item by itself in a
// transaction of its own (transfer-execute.ts), which decides it exactly.
// That is the case for the rare items the batch does not decide: an id
// given twice in the batch, an item the floor refused (alone, a taken id is
// reported before the funds, as the single write does) and every later item
// of its account (the running sum counted money that was not taken), and an
// item whose accounts are missing (written alone, it says which).
import { POSTING_KINDS } from '../domain/ledger.ts';
import { STATE } from '../domain/transfer-states.ts';
import type { SqlValue, Tx } from './db.ts';
import { insertEvents } from './events.ts';
import { postBatch } from './ledger.ts';
import type { ExecuteWrite } from './transfer-execute.ts';
import { insertTransfer, insertTransferEvents, NEW_TRANSFER_COLUMNS, newTransferValues } from './transfers.ts';

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
    ?::int8[], ?::text[], ?::int8[], ?::int8[], ?::int8[], ?::int8[], ?::int8[], ?::text[], ?::text[], ?::int8[], ?::text[], ?::text[], ?::text[])
    AS i (ord, merchant_id, id, sender_phone, receiver_phone, amount_cents, service, receiver_country, receiver_currency, fx_rate, received_minor, attributes_json,
      substate, waiting_for, next_run_at_ms, invitation_expires_at_ms, gateway_charge_pk, created_at_ms, updated_at_ms, debit_account_id, credit_account_id,
      posting_cents, posting_kind, ref_type, note)
), outbox_input AS (
  SELECT * FROM unnest(?::int[], ?::int[], ?::text[], ?::text[]) AS e (ord, n, type, data_json)
), locked AS MATERIALIZED (
  SELECT id, balance_cents, floor_cents FROM accounts WHERE id = ANY (?::text[]) ORDER BY id FOR UPDATE
), first_of_id AS (
  SELECT DISTINCT ON (merchant_id, id) ord FROM input ORDER BY merchant_id, id, ord
), running AS (
  SELECT i.ord, i.debit_account_id,
    (d.id IS NOT NULL AND c.id IS NOT NULL) AS accounts_found,
    (d.floor_cents IS NULL OR d.balance_cents - sum(i.posting_cents) OVER (PARTITION BY i.debit_account_id ORDER BY i.ord) >= d.floor_cents) AS fits
  FROM input i JOIN first_of_id f ON f.ord = i.ord
  LEFT JOIN locked d ON d.id = i.debit_account_id LEFT JOIN locked c ON c.id = i.credit_account_id
), judged AS (
  SELECT r.*, bool_and(r.fits) OVER (PARTITION BY r.debit_account_id ORDER BY r.ord ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_fit
  FROM running r
), accepted AS (
  SELECT i.* FROM input i JOIN judged j ON j.ord = i.ord WHERE j.accounts_found AND j.fits AND j.earlier_fit IS NOT FALSE
), created AS (
  INSERT INTO transfers (${NEW_TRANSFER_COLUMNS})
  SELECT merchant_id, id, sender_phone, receiver_phone, amount_cents, service, receiver_country, receiver_currency, fx_rate, received_minor, attributes_json, 0,
    substate, waiting_for, next_run_at_ms, invitation_expires_at_ms, gateway_charge_pk, created_at_ms, updated_at_ms
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
  INSERT INTO events (merchant_id, type, data_json, created_at_ms)
  SELECT m.merchant_id, e.type, e.data_json, m.created_at_ms FROM made m JOIN outbox_input e ON e.ord = m.ord ORDER BY m.ord, e.n
)
SELECT i.ord, a.ord IS NOT NULL AS accepted, m.pk
FROM input i
LEFT JOIN accepted a ON a.ord = i.ord
LEFT JOIN made m ON m.ord = i.ord
ORDER BY i.ord`;

/** The input's columns: ord, a new transfer's values (newTransferValues), then the posting's and the history note. */
const DEBIT_COLUMN = 19;
const INPUT_COLUMNS = DEBIT_COLUMN + 6;

interface ResultRow {
  ord: number;
  accepted: boolean;
  pk: number | string | null;
}

/** Writes `writes` together; one outcome per write, in order. */
export async function recordExecutes(tx: Tx, writes: readonly ExecuteWrite[]): Promise<BatchOutcome[]> {
  return tx.dialect === 'postgres' ? inOneStatement(tx, writes) : tableByTable(tx, writes);
}

async function inOneStatement(tx: Tx, writes: readonly ExecuteWrite[]): Promise<BatchOutcome[]> {
  const columns: SqlValue[][] = Array.from({ length: INPUT_COLUMNS }, () => []);
  const outbox: SqlValue[][] = [[], [], [], []];
  writes.forEach((w, ord) => {
    const t = w.transfer;
    const p = w.posting;
    const row: SqlValue[] = [ord, ...newTransferValues(t), p.debitAccountId, p.creditAccountId, p.amountCents, p.kind, POSTING_KINDS[p.kind].refType, w.note];
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

/** SQLite (one writer): judged in batch order against the balances read here, then written table by table. */
async function tableByTable(tx: Tx, writes: readonly ExecuteWrite[]): Promise<BatchOutcome[]> {
  const accountIds = [...new Set(writes.flatMap((w) => [w.posting.debitAccountId, w.posting.creditAccountId]))];
  const accounts = new Map<string, { balance: number; floor: number | null }>();
  for (const id of accountIds) {
    const row = await tx.get<{ balance_cents: number; floor_cents: number | null }>('SELECT balance_cents, floor_cents FROM accounts WHERE id = ?', [id]);
    if (row !== undefined) accounts.set(id, { balance: Number(row.balance_cents), floor: row.floor_cents === null ? null : Number(row.floor_cents) });
  }
  const outcomes: BatchOutcome[] = new Array(writes.length);
  const seenIds = new Set<string>();
  const refusedAccounts = new Set<string>();
  const accepted: number[] = [];
  writes.forEach((w, ord) => {
    const debit = accounts.get(w.posting.debitAccountId);
    const idKey = `${w.transfer.merchant_id}\n${w.transfer.id}`;
    const first = !seenIds.has(idKey);
    seenIds.add(idKey);
    if (!first || debit === undefined || !accounts.has(w.posting.creditAccountId) || refusedAccounts.has(w.posting.debitAccountId)) {
      outcomes[ord] = { kind: 'alone' };
      return;
    }
    if (debit.floor !== null && debit.balance - w.posting.amountCents < debit.floor) {
      refusedAccounts.add(w.posting.debitAccountId);
      outcomes[ord] = { kind: 'alone' };
      return;
    }
    debit.balance -= w.posting.amountCents;
    accepted.push(ord);
  });
  const made: Array<{ ord: number; pk: number }> = [];
  for (const ord of accepted) {
    const pk = await insertTransfer(tx, writes[ord]!.transfer);
    outcomes[ord] = pk === null ? { kind: 'duplicate' } : { kind: 'recorded', pk };
    if (pk !== null) made.push({ ord, pk });
  }
  if (made.length === 0) return outcomes;
  const posted = await postBatch(
    tx,
    made.map(({ ord, pk }) => ({ ...writes[ord]!.posting, refId: String(pk) })),
  );
  // The balances were judged above in this transaction, and nothing else writes meanwhile.
  if (posted !== 'posted') throw new Error('execute batch: a posting judged within the floor was refused');
  await insertTransferEvents(
    tx,
    made.map(({ ord, pk }) => ({
      transferPk: pk,
      state: STATE.new,
      substate: writes[ord]!.transfer.substate,
      note: writes[ord]!.note,
      atMs: writes[ord]!.transfer.created_at_ms,
    })),
  );
  await insertEvents(
    tx,
    made.flatMap(({ ord }) => {
      const t = writes[ord]!.transfer;
      return writes[ord]!.events.map((e) => ({ merchantId: t.merchant_id, type: e.type, dataJson: e.dataJson, nowMs: t.created_at_ms }));
    }),
  );
  return outcomes;
}
