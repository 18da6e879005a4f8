// Transfer rows, their event history, quotes and payin links. Every state
// change goes through one guarded UPDATE (WHERE pk = ? AND version = ?), so a
// change computed from a row that someone else changed meanwhile is refused
// instead of overwriting theirs.
import { STATE, SUBSTATE, type WaitingFor } from '../domain/transfer-states.ts';
import type { ReversalMark } from '../domain/transfer-reversals.ts';
import { linkableChargeSql, unlinkedCentsSql } from './charges.ts';
import type { Db, SqlValue, Tx } from './db.ts';
import { chunkSizes, insertRows } from './multi-row.ts';

export interface TransferRow {
  pk: number;
  merchant_id: string;
  id: string;
  sender_phone: string;
  receiver_phone: string;
  amount_cents: number;
  service: string;
  receiver_currency: string;
  received_minor: number;
  attributes_json: string;
  state: number;
  substate: number;
  final: number;
  code: number;
  waiting_for: WaitingFor | null;
  payment_id: string | null;
  provider_ref: string | null;
  provider_error_text: string | null;
  provider_error_code: string | null;
  trans: string | null;
  sum_prov: string | null;
  attempts: number;
  next_run_at_ms: number | null;
  submitted_at_ms: number | null;
  invitation_expires_at_ms: number | null;
  gateway_charge_pk: number | null;
  /** The payout connector it was first submitted to (null: not submitted yet; its corridor's connector then). */
  payout_connector: string | null;
  version: number;
}

/**
 * The waiting condition as SQL (the same rule as domain isWaitingFor), for a
 * table alias or none. The reason is one of two literals, never user input.
 */
export function waitingForSql(reason: WaitingFor, alias = ''): string {
  const t = alias === '' ? '' : `${alias}.`;
  return `${t}final = 0 AND ${t}state = ${STATE.new} AND ${t}substate = ${SUBSTATE.waiting} AND ${t}waiting_for = '${reason}'`;
}

const WAITING_FOR_INVITATION = waitingForSql('invitation');

export const TRANSFER_COLUMNS =
  'pk, merchant_id, id, sender_phone, receiver_phone, amount_cents, service, receiver_currency, received_minor, attributes_json, state, substate, final, code, waiting_for, payment_id, provider_ref, provider_error_text, provider_error_code, trans, sum_prov, attempts, next_run_at_ms, submitted_at_ms, invitation_expires_at_ms, gateway_charge_pk, payout_connector, version';

export interface NewTransfer {
  merchant_id: string;
  id: string;
  sender_phone: string;
  receiver_phone: string;
  amount_cents: number;
  service: string;
  receiver_country: string;
  receiver_currency: string;
  fx_rate: string;
  received_minor: number;
  attributes_json: string;
  substate: number;
  waiting_for: WaitingFor | null;
  next_run_at_ms: number | null;
  invitation_expires_at_ms: number | null;
  gateway_charge_pk: number | null;
  created_at_ms: number;
  /** The payout network its corridor names at execute: it is sent there, whatever the corridors file says later. */
  payout_connector: string;
}

/** The columns a new transfer is inserted with (state 0), in the order of newTransferValues. */
export const NEW_TRANSFER_COLUMNS =
  'merchant_id, id, sender_phone, receiver_phone, amount_cents, service, receiver_country, receiver_currency, fx_rate, received_minor, attributes_json, state, substate, waiting_for, next_run_at_ms, invitation_expires_at_ms, gateway_charge_pk, created_at_ms, updated_at_ms, payout_connector';

/** The values of NEW_TRANSFER_COLUMNS but `state` (always 0, written as a literal). */
export function newTransferValues(t: NewTransfer): SqlValue[] {
  return [
    t.merchant_id,
    t.id,
    t.sender_phone,
    t.receiver_phone,
    t.amount_cents,
    t.service,
    t.receiver_country,
    t.receiver_currency,
    t.fx_rate,
    t.received_minor,
    t.attributes_json,
    t.substate,
    t.waiting_for,
    t.next_run_at_ms,
    t.invitation_expires_at_ms,
    t.gateway_charge_pk,
    t.created_at_ms,
    t.created_at_ms,
    t.payout_connector,
  ];
}

/**
 * Inserts a new transfer in state 0. Returns its pk, or null when this
 * merchant already has a transfer with this id (also when a concurrent
 * execute inserted it first: PostgreSQL waits for that one to commit).
 */
export function insertTransfer(tx: Tx, t: NewTransfer): Promise<number | null> {
  return tx.insert(
    `INSERT INTO transfers (${NEW_TRANSFER_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?)`,
    newTransferValues(t),
    'merchant_id, id',
  );
}

export async function insertEvent(tx: Tx, transferPk: number, state: number, substate: number, note: string | null, atMs: number): Promise<void> {
  await tx.run('INSERT INTO transfer_events (transfer_pk, state, substate, note, at_ms) VALUES (?, ?, ?, ?, ?)', [transferPk, state, substate, note, atMs]);
}

export async function getTransfer(tx: Tx, merchantId: string, id: string): Promise<TransferRow | undefined> {
  return tx.get<TransferRow>(`SELECT ${TRANSFER_COLUMNS} FROM transfers WHERE merchant_id = ? AND id = ?`, [merchantId, id]);
}

/** What the status endpoint shows of a transfer. */
export interface TransferStatusRow {
  state: number;
  substate: number;
  final: number;
  code: number;
  waiting_for: WaitingFor | null;
  receiver_phone: string;
  provider_error_text: string | null;
  provider_error_code: string | null;
  trans: string | null;
  sum_prov: string | null;
  /** The card payin this transfer is linked to (by gatewayId, reconciliation or an operator), or null. */
  gateway_charge_pk: number | null;
  /** Its corridor (service id): the network that invites a new receiver is the corridor's. */
  service: string;
  /**
   * A reversal of its completed payout (transfers.reversal, set by the
   * reversal commands). Absent where a row is rendered from a change just
   * made (only a final transfer can have one, and it is never changed again).
   */
  reversal?: ReversalMark | null;
}

/** The columns of TransferStatusRow, for the status read and the transfer list. */
export const TRANSFER_STATUS_COLUMNS =
  'state, substate, final, code, waiting_for, receiver_phone, provider_error_text, provider_error_code, trans, sum_prov, gateway_charge_pk, service, reversal';

/** TRANSFER_STATUS_COLUMNS of the table aliased t. */
const TRANSFER_STATUS_COLUMNS_OF_T = TRANSFER_STATUS_COLUMNS.split(', ')
  .map((column) => `t.${column}`)
  .join(', ');

export function readTransferStatus(tx: Tx, merchantId: string, id: string): Promise<TransferStatusRow | undefined> {
  return tx.get<TransferStatusRow>(`SELECT ${TRANSFER_STATUS_COLUMNS} FROM transfers WHERE merchant_id = ? AND id = ?`, [merchantId, id]);
}

/**
 * The status rows of many transfers with one statement (PostgreSQL, Db.batched): one
 * entry per key, in order, undefined where no transfer has it.
 */
export async function readTransferStatuses(
  tx: Tx,
  keys: ReadonlyArray<{ readonly merchantId: string; readonly id: string }>,
): Promise<Array<TransferStatusRow | undefined>> {
  return readByKeyPairs<TransferStatusRow>(
    tx,
    `SELECT t.pk IS NOT NULL AS found, ${TRANSFER_STATUS_COLUMNS_OF_T}
     FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS k (merchant_id, id, ord)
     LEFT JOIN transfers t ON t.merchant_id = k.merchant_id AND t.id = k.id
     ORDER BY k.ord`,
    keys.map((k) => [k.merchantId, k.id]),
  );
}

/**
 * Runs a PostgreSQL read whose two text-array parameters are the keys' two
 * halves and whose rows come one per key, in order, with `found` saying
 * whether anything matched; the rows without it, undefined where not found.
 */
async function readByKeyPairs<T>(tx: Tx, sql: string, keys: ReadonlyArray<readonly [string, string]>): Promise<Array<T | undefined>> {
  // Arrays travel as parameters (the driver encodes them); SqlValue does not name arrays, which only PostgreSQL statements pass.
  const rows = await tx.all<T & { found: boolean }>(sql, [keys.map((k) => k[0]), keys.map((k) => k[1])] as unknown as SqlValue[]);
  return rows.map((row) => {
    if (!row.found) return undefined;
    const { found: _found, ...rest } = row;
    return rest as T;
  });
}

/** The full set of columns a state change may write; the worker computes them from the row it read. */
export interface TransferChange {
  state: number;
  substate: number;
  final: number;
  waiting_for: WaitingFor | null;
  next_run_at_ms: number | null;
  attempts: number;
  payment_id: string | null;
  provider_ref: string | null;
  submitted_at_ms: number | null;
  provider_error_text: string | null;
  provider_error_code: string | null;
  trans: string | null;
  sum_prov: string | null;
  invitation_expires_at_ms: number | null;
  gateway_charge_pk: number | null;
  payout_connector: string | null;
}

export function changeFrom(row: TransferRow): TransferChange {
  return {
    state: row.state,
    substate: row.substate,
    final: row.final,
    waiting_for: row.waiting_for,
    next_run_at_ms: row.next_run_at_ms,
    attempts: row.attempts,
    payment_id: row.payment_id,
    provider_ref: row.provider_ref,
    submitted_at_ms: row.submitted_at_ms,
    provider_error_text: row.provider_error_text,
    provider_error_code: row.provider_error_code,
    trans: row.trans,
    sum_prov: row.sum_prov,
    invitation_expires_at_ms: row.invitation_expires_at_ms,
    gateway_charge_pk: row.gateway_charge_pk,
    payout_connector: row.payout_connector,
  };
}

/**
 * Writes a change if the row is still at `version` and not final; releases
 * any worker lease. Returns false (nothing written) when it is not.
 */
export async function applyChange(tx: Tx, pk: number, version: number, change: TransferChange, nowMs: number): Promise<boolean> {
  const result = await tx.run(
    `UPDATE transfers SET state = ?, substate = ?, final = ?, waiting_for = ?, next_run_at_ms = ?, attempts = ?, payment_id = ?, provider_ref = ?,
       submitted_at_ms = ?, provider_error_text = ?, provider_error_code = ?, trans = ?, sum_prov = ?, invitation_expires_at_ms = ?, gateway_charge_pk = ?,
       payout_connector = ?, lease_until_ms = 0, version = version + 1, updated_at_ms = ?
     WHERE pk = ? AND version = ? AND final = 0`,
    [
      change.state,
      change.substate,
      change.final,
      change.waiting_for,
      change.next_run_at_ms,
      change.attempts,
      change.payment_id,
      change.provider_ref,
      change.submitted_at_ms,
      change.provider_error_text,
      change.provider_error_code,
      change.trans,
      change.sum_prov,
      change.invitation_expires_at_ms,
      change.gateway_charge_pk,
      change.payout_connector,
      nowMs,
      pk,
      version,
    ],
  );
  return result.changes === 1;
}

/** Only the schedule moves (a payout still pending at the network); no state change, no event. */
export async function reschedule(tx: Tx, pk: number, version: number, nextRunAtMs: number | null, attempts: number, nowMs: number): Promise<boolean> {
  const result = await tx.run(
    'UPDATE transfers SET next_run_at_ms = ?, attempts = ?, lease_until_ms = 0, version = version + 1, updated_at_ms = ? WHERE pk = ? AND version = ? AND final = 0',
    [nextRunAtMs, attempts, nowMs, pk, version],
  );
  return result.changes === 1;
}

/**
 * Transfers whose next step is due. On PostgreSQL several workers share the
 * table: each claims rows by setting a lease (and bumping the version) in
 * one statement, skipping rows another worker has locked, so no row is
 * handed to two workers. On SQLite there is one writer; a plain read is
 * enough and costs no commit.
 */
export async function claimDueTransfers(db: Db, nowMs: number, leaseUntilMs: number, limit: number): Promise<TransferRow[]> {
  if (db.dialect === 'postgres') {
    return db.write((tx) =>
      tx.all<TransferRow>(
        `UPDATE transfers SET lease_until_ms = ?, version = version + 1
         WHERE pk IN (
           SELECT pk FROM transfers WHERE final = 0 AND next_run_at_ms <= ? AND lease_until_ms <= ?
           ORDER BY next_run_at_ms LIMIT ? FOR UPDATE SKIP LOCKED)
         RETURNING ${TRANSFER_COLUMNS}`,
        [leaseUntilMs, nowMs, nowMs, limit],
      ),
    );
  }
  return db.read((tx) =>
    tx.all<TransferRow>(
      `SELECT ${TRANSFER_COLUMNS} FROM transfers WHERE final = 0 AND next_run_at_ms <= ? AND lease_until_ms <= ? ORDER BY next_run_at_ms LIMIT ?`,
      [nowMs, nowMs, limit],
    ),
  );
}

/** Transfers waiting for this receiver to accept a payment invitation that has not expired yet. */
export async function invitationWaitsOf(tx: Tx, receiverPhone: string, nowMs: number, limit: number): Promise<TransferRow[]> {
  return tx.all<TransferRow>(
    `SELECT ${TRANSFER_COLUMNS} FROM transfers
     WHERE receiver_phone = ? AND ${WAITING_FOR_INVITATION} AND invitation_expires_at_ms > ?
     ORDER BY pk LIMIT ?`,
    [receiverPhone, nowMs, limit],
  );
}

// Quotes ---------------------------------------------------------------------

export async function saveQuote(
  tx: Tx,
  quote: { merchant_id: string; transfer_id: string; service: string; amount_cents: number; fx_rate: string; expires_at_ms: number },
): Promise<void> {
  await tx.run(
    `INSERT INTO quotes (merchant_id, transfer_id, service, amount_cents, fx_rate, expires_at_ms) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (merchant_id, transfer_id) DO UPDATE SET service = excluded.service, amount_cents = excluded.amount_cents,
       fx_rate = excluded.fx_rate, expires_at_ms = excluded.expires_at_ms`,
    [quote.merchant_id, quote.transfer_id, quote.service, quote.amount_cents, quote.fx_rate, quote.expires_at_ms],
  );
}

export interface ExecuteContext {
  payouts_must_link: number;
  quote_service: string | null;
  quote_amount_cents: number | null;
  quote_fx_rate: string | null;
  quote_expires_at_ms: number | null;
}

/** The columns of ExecuteContext, from merchants m and quotes q. */
const EXECUTE_CONTEXT_COLUMNS =
  'm.payouts_must_link, q.service AS quote_service, q.amount_cents AS quote_amount_cents, q.fx_rate AS quote_fx_rate, q.expires_at_ms AS quote_expires_at_ms';

/** What execute needs besides the request, in one read: the merchant's link flag and any quote for this id. */
export async function readExecuteContext(tx: Tx, merchantId: string, transferId: string): Promise<ExecuteContext | undefined> {
  return tx.get<ExecuteContext>(
    `SELECT ${EXECUTE_CONTEXT_COLUMNS}
     FROM merchants m LEFT JOIN quotes q ON q.merchant_id = m.id AND q.transfer_id = ?
     WHERE m.id = ?`,
    [transferId, merchantId],
  );
}

/** readExecuteContext for many executes with one statement (PostgreSQL, Db.batched): one entry per key, in order. */
export async function readExecuteContexts(
  tx: Tx,
  keys: ReadonlyArray<{ readonly merchantId: string; readonly transferId: string }>,
): Promise<Array<ExecuteContext | undefined>> {
  return readByKeyPairs<ExecuteContext>(
    tx,
    `SELECT m.id IS NOT NULL AS found, ${EXECUTE_CONTEXT_COLUMNS}
     FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS k (merchant_id, transfer_id, ord)
     LEFT JOIN merchants m ON m.id = k.merchant_id
     LEFT JOIN quotes q ON q.merchant_id = k.merchant_id AND q.transfer_id = k.transfer_id
     ORDER BY k.ord`,
    keys.map((k) => [k.merchantId, k.transferId]),
  );
}

/** Deletes at most `limit` expired quotes; returns how many. */
export async function deleteExpiredQuotes(tx: Tx, nowMs: number, limit: number): Promise<number> {
  const result = await tx.run(
    `DELETE FROM quotes WHERE (merchant_id, transfer_id) IN (
       SELECT merchant_id, transfer_id FROM quotes WHERE expires_at_ms < ? LIMIT ?)`,
    [nowMs, limit],
  );
  return result.changes;
}

// Payin links ----------------------------------------------------------------

/**
 * Reserves `amountCents` of an approved charge of this merchant for a
 * transfer, if that much is not yet linked. The condition is part of the
 * UPDATE, so two transfers can never over-link one charge.
 */
export async function linkCharge(
  tx: Tx,
  link: { transferPk: number; chargePk: number; merchantId: string; amountCents: number; how: 'gateway' | 'auto' | 'operator'; nowMs: number },
): Promise<boolean> {
  const reserved = await tx.run(
    `UPDATE charges SET linked_cents = linked_cents + ?, updated_at_ms = ?
     WHERE pk = ? AND merchant_id = ? AND ${linkableChargeSql('')} AND ${unlinkedCentsSql('')} >= ?`,
    [link.amountCents, link.nowMs, link.chargePk, link.merchantId, link.amountCents],
  );
  if (reserved.changes !== 1) return false;
  await tx.run('INSERT INTO transfer_links (transfer_pk, charge_pk, amount_cents, how, created_at_ms) VALUES (?, ?, ?, ?, ?)', [
    link.transferPk,
    link.chargePk,
    link.amountCents,
    link.how,
    link.nowMs,
  ]);
  return true;
}

/** A failed transfer gives its share of the charge back, so the charge can fund another transfer. */
export async function unlinkCharge(tx: Tx, transferPk: number, nowMs: number): Promise<void> {
  const link = await tx.get<{ charge_pk: number; amount_cents: number }>('SELECT charge_pk, amount_cents FROM transfer_links WHERE transfer_pk = ?', [
    transferPk,
  ]);
  if (link === undefined) return;
  await tx.run('UPDATE charges SET linked_cents = linked_cents - ?, updated_at_ms = ? WHERE pk = ?', [link.amount_cents, nowMs, link.charge_pk]);
  await tx.run('DELETE FROM transfer_links WHERE transfer_pk = ?', [transferPk]);
}

/** What a gatewayId refusal names about the charge: whose it is, its status and how much of it is not yet linked. */
export interface GatewayChargeFacts {
  merchant_id: string;
  status: string;
  unlinked_cents: number;
}

/** The facts of charge `chargePk`, whoever's it is; undefined when there is no such charge. */
export async function gatewayChargeFacts(tx: Tx, chargePk: number): Promise<GatewayChargeFacts | undefined> {
  // The status as a transfer link sees it: only captured money can fund a transfer (docs/api-decisions.md section 10).
  const row = await tx.get<GatewayChargeFacts>(
    `SELECT merchant_id, CASE WHEN payment_type = 'check' THEN 'check' WHEN ${linkableChargeSql('')} THEN 'approved' WHEN kind = 'refund' THEN 'a refund' WHEN status <> 'approved' THEN status
       WHEN op IS NOT NULL THEN 'pending' WHEN stage = 'authorized' THEN 'authorized only (not captured)' ELSE stage END AS status,
       ${unlinkedCentsSql('')} AS unlinked_cents FROM charges WHERE pk = ?`,
    [chargePk],
  );
  return row === undefined ? undefined : { ...row, unlinked_cents: Number(row.unlinked_cents) };
}

/** A transfer a charge funds: its id (as the merchant sent it) and the amount linked. */
export interface FundedTransferRow {
  id: string;
  amount_cents: number;
}

/** The transfers charge `chargePk` currently funds, oldest link first, at most `limit`. */
export async function fundedTransfers(tx: Tx, chargePk: number, limit: number): Promise<FundedTransferRow[]> {
  return tx.all<FundedTransferRow>(
    `SELECT t.id, l.amount_cents FROM transfer_links l JOIN transfers t ON t.pk = l.transfer_pk
     WHERE l.charge_pk = ? ORDER BY l.created_at_ms, l.transfer_pk LIMIT ?`,
    [chargePk, limit],
  );
}

/**
 * The transfers each of `chargePks` currently funds, oldest link first, at
 * most `limit` each: one statement for a page of transactions, one bounded
 * subquery per charge (transfer_links_charge serves each).
 */
export async function fundedTransfersOfCharges(tx: Tx, chargePks: readonly number[], limit: number): Promise<Map<number, FundedTransferRow[]>> {
  const funded = new Map<number, FundedTransferRow[]>(chargePks.map((pk) => [pk, []]));
  if (chargePks.length === 0) return funded;
  const one = `SELECT * FROM (SELECT l.charge_pk, t.id, l.amount_cents, l.created_at_ms, l.transfer_pk FROM transfer_links l JOIN transfers t ON t.pk = l.transfer_pk
     WHERE l.charge_pk = ? ORDER BY l.created_at_ms, l.transfer_pk LIMIT ?) f`;
  const rows = await tx.all<FundedTransferRow & { charge_pk: number }>(
    `SELECT charge_pk, id, amount_cents FROM (${chargePks.map(() => one).join(' UNION ALL ')}) u ORDER BY u.charge_pk, u.created_at_ms, u.transfer_pk`,
    chargePks.flatMap((pk) => [pk, limit]),
  );
  for (const row of rows) funded.get(Number(row.charge_pk))?.push({ id: row.id, amount_cents: row.amount_cents });
  return funded;
}

/** The oldest approved charge of the merchant, created since `sinceMs`, with at least `amountCents` unlinked. */
export async function findReconciliationCharge(tx: Tx, merchantId: string, amountCents: number, sinceMs: number): Promise<number | null> {
  const row = await tx.get<{ pk: number }>(
    `SELECT pk FROM charges
     WHERE merchant_id = ? AND ${linkableChargeSql('')} AND created_at_ms >= ? AND ${unlinkedCentsSql('')} >= ?
     ORDER BY created_at_ms, pk LIMIT 1`,
    [merchantId, sinceMs, amountCents],
  );
  return row === undefined ? null : Number(row.pk);
}

/** Transfers waiting for reconciliation for which some recent charge of their merchant has room. */
export async function reconcilableTransfers(tx: Tx, sinceMs: number, limit: number): Promise<TransferRow[]> {
  return tx.all<TransferRow>(
    `SELECT ${TRANSFER_COLUMNS} FROM transfers t
     WHERE ${waitingForSql('reconciliation', 't')}
       AND EXISTS (SELECT 1 FROM charges c WHERE c.merchant_id = t.merchant_id AND ${linkableChargeSql('c')}
                   AND c.created_at_ms >= ? AND ${unlinkedCentsSql('c')} >= t.amount_cents)
     ORDER BY t.pk LIMIT ?`,
    [sinceMs, limit],
  );
}

/** A transfer's history row, as insertEvent writes one. */
export interface TransferEventInput {
  transferPk: number;
  state: number;
  substate: number;
  note: string | null;
  atMs: number;
}

/** Several history rows by multi-row INSERT, in their order (a transfer's rows keep the order of its changes). */
export async function insertTransferEvents(tx: Tx, events: readonly TransferEventInput[]): Promise<void> {
  await insertRows(
    tx,
    'INSERT INTO transfer_events (transfer_pk, state, substate, note, at_ms)',
    5,
    events.map((e) => [e.transferPk, e.state, e.substate, e.note, e.atMs]),
  );
}

/** The columns a change writes, in the order of TransferChange; BIGINT unless named here. */
const CHANGE_COLUMNS = [
  'state',
  'substate',
  'final',
  'waiting_for',
  'next_run_at_ms',
  'attempts',
  'payment_id',
  'provider_ref',
  'submitted_at_ms',
  'provider_error_text',
  'provider_error_code',
  'trans',
  'sum_prov',
  'invitation_expires_at_ms',
  'gateway_charge_pk',
  'payout_connector',
] as const satisfies ReadonlyArray<keyof TransferChange>;
const TEXT_CHANGE_COLUMNS: ReadonlySet<string> = new Set([
  'waiting_for',
  'payment_id',
  'provider_ref',
  'provider_error_text',
  'provider_error_code',
  'trans',
  'sum_prov',
  'payout_connector',
]);

const applyChangesTexts = new Map<number, string>();

/**
 * The guarded UPDATE of many rows in one statement: the new values travel as
 * a VALUES list joined to the table by pk. The first row's values carry their
 * types (PostgreSQL infers the rest from them); SQLite reads the list once
 * and looks each row up by its primary key.
 */
function applyChangesText(rows: number): string {
  let text = applyChangesTexts.get(rows);
  if (text === undefined) {
    const columns = ['pk', 'version', ...CHANGE_COLUMNS];
    const first = `(${columns.map((c) => `CAST(? AS ${TEXT_CHANGE_COLUMNS.has(c) ? 'TEXT' : 'BIGINT'})`).join(', ')})`;
    const rest = `(${columns.map(() => '?').join(', ')})`;
    text = `WITH v (${columns.join(', ')}) AS (VALUES ${[first, ...Array.from({ length: rows - 1 }, () => rest)].join(', ')})
      UPDATE transfers SET ${CHANGE_COLUMNS.map((c) => `${c} = v.${c}`).join(', ')}, lease_until_ms = 0, version = transfers.version + 1, updated_at_ms = ?
      FROM v WHERE transfers.pk = v.pk AND transfers.version = v.version AND transfers.final = 0
      RETURNING transfers.pk`;
    applyChangesTexts.set(rows, text);
  }
  return text;
}

/**
 * applyChange for a batch of rows, each guarded by its own version: a row
 * that is no longer at its version (or is final) is left alone without
 * affecting the others. Returns the pks of the rows changed.
 */
export async function applyChanges(
  tx: Tx,
  changes: ReadonlyArray<{ pk: number; version: number; change: TransferChange }>,
  nowMs: number,
): Promise<Set<number>> {
  // Rows are locked in pk order, so two writers of overlapping sets cannot deadlock.
  const sorted = [...changes].sort((a, b) => a.pk - b.pk);
  const statements: Array<Promise<Array<{ pk: number }>>> = [];
  let start = 0;
  for (const size of chunkSizes(sorted.length)) {
    const params: SqlValue[] = [];
    for (let i = start; i < start + size; i++) {
      const { pk, version, change } = sorted[i]!;
      params.push(pk, version);
      for (const column of CHANGE_COLUMNS) params.push(change[column]);
    }
    params.push(nowMs);
    // Sent together (pipelined on PostgreSQL, in pk order).
    statements.push(tx.all<{ pk: number }>(applyChangesText(size), params));
    start += size;
  }
  const applied = new Set<number>();
  for (const rows of await Promise.all(statements)) for (const row of rows) applied.add(Number(row.pk));
  return applied;
}
