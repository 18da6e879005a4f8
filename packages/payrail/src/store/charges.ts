// Card charges. A charge row is written as `pending` before the processor is
// called (so a crash can never lose a charge the processor may have made)
// and its outcome is recorded by a guarded UPDATE afterwards. The sealed card
// number is kept only while the charge may need the processor again.
import type { PendingOperation, Stage } from '../domain/card-lifecycle.ts';
import type { SqlValue, Tx } from './db.ts';
import { getRowHoldingKey, type HeldKey } from './idempotency.ts';
import { byKey } from './by-key.ts';
import { joinOpenBatch, openBatchIdSql } from './batches.ts';

export type ChargeStatus = 'approved' | 'pending' | 'declined' | 'failed';

export interface ChargeRow {
  pk: number;
  merchant_id: string;
  source_id: string;
  status: ChargeStatus;
  amount_cents: number;
  currency: string;
  card_type: string;
  last4: string;
  bin: string;
  expiry_month: number;
  expiry_year: number;
  auth_code: string | null;
  avs_result_code: string | null;
  cvv_result_code: string | null;
  error_code: string | null;
  error_message: string | null;
  processor_ref: string | null;
  request_json: string;
  idem_key: string | null;
  created_at_ms: number;
  // The card lifecycle (migration 005, docs/api-decisions.md section 10).
  /** A charge, or a refund of the charge `parent_pk`. */
  kind: 'charge' | 'refund';
  parent_pk: number | null;
  /** 0 for an authorization only (`capture: false`). */
  auto_capture: number;
  /** Where an approved transaction is; null until approved. */
  stage: Stage | null;
  captured_cents: number;
  voided_cents: number;
  refunded_cents: number;
  /** How much of the captured amount funds transfers that have not failed. */
  linked_cents: number;
  batch_id: number | null;
  settled_at_ms: number | null;
  /** A capture or void awaiting the processor's answer, with its amount and Idempotency-Key. */
  op: PendingOperation | null;
  op_cents: number | null;
  op_source_id: string | null;
  op_idem_key: string | null;
  void_refused: number;
  // Stored customers (migration 009, docs/api-decisions.md section 15): what the charge was made for.
  customer_pk: number | null;
  payment_method_pk: number | null;
  schedule_pk: number | null;
  // Saved-card tokens (migration 015): the token a `save_card` request asks for, issued (card_ref) once approved.
  save_card_ref: string | null;
  card_ref: string | null;
  /** 'check' for a check charge, refund or credit (migration 029): its ACH entry says where it is; card paths leave it alone. */
  payment_type: 'card' | 'check';
}

/** Every column of ChargeRow, for the reads that return whole rows. */
export const CHARGE_COLUMNS =
  'pk, merchant_id, source_id, status, amount_cents, currency, card_type, last4, bin, expiry_month, expiry_year, auth_code, avs_result_code, cvv_result_code, error_code, error_message, processor_ref, request_json, idem_key, created_at_ms, ' +
  'kind, parent_pk, auto_capture, stage, captured_cents, voided_cents, refunded_cents, linked_cents, batch_id, settled_at_ms, op, op_cents, op_source_id, op_idem_key, void_refused, ' +
  'customer_pk, payment_method_pk, schedule_pk, save_card_ref, card_ref, payment_type';
const COLUMNS = CHARGE_COLUMNS;

/**
 * A charge whose captured money may fund transfers (docs/api-decisions.md sections 7 and 10):
 * captured or settled, with no void awaiting the processor. `c` is the
 * charges table's alias in the query ('' for none).
 */
export function linkableChargeSql(c: string): string {
  const p = c === '' ? '' : `${c}.`;
  return `${p}kind = 'charge' AND ${p}stage IN ('captured', 'settled') AND ${p}op IS NULL AND ${p}payment_type = 'card'`;
}

/** What of a charge's captured money is neither refunded nor linked to a transfer. */
export function unlinkedCentsSql(c: string): string {
  const p = c === '' ? '' : `${c}.`;
  return `(${p}captured_cents - ${p}refunded_cents - ${p}linked_cents)`;
}

/**
 * The row of charge `pk` just inserted by insertPendingCharge (before the
 * processor answers), as a read of it would return it. Written out field by
 * field, in CHARGE_COLUMNS' order: the object has the shape of the rows the
 * store reads (the code that renders charges sees one shape), and an object
 * spread of two dozen fields cost more than the charge's own statements.
 */
export function pendingChargeRow(pk: number, charge: NewCharge): ChargeRow {
  return {
    pk,
    merchant_id: charge.merchant_id,
    source_id: charge.source_id,
    status: 'pending',
    amount_cents: charge.amount_cents,
    currency: 'USD',
    card_type: charge.card_type,
    last4: charge.last4,
    bin: charge.bin,
    expiry_month: charge.expiry_month,
    expiry_year: charge.expiry_year,
    auth_code: null,
    avs_result_code: null,
    cvv_result_code: null,
    error_code: null,
    error_message: null,
    processor_ref: null,
    request_json: charge.request_json,
    idem_key: charge.idem_key,
    created_at_ms: charge.created_at_ms,
    kind: 'charge',
    parent_pk: null,
    auto_capture: charge.auto_capture ?? 1,
    stage: null,
    captured_cents: 0,
    voided_cents: 0,
    refunded_cents: 0,
    linked_cents: 0,
    batch_id: null,
    settled_at_ms: null,
    op: null,
    op_cents: null,
    op_source_id: null,
    op_idem_key: null,
    void_refused: 0,
    customer_pk: charge.customer_pk ?? null,
    payment_method_pk: charge.payment_method_pk ?? null,
    schedule_pk: charge.schedule_pk ?? null,
    save_card_ref: charge.save_card_ref ?? null,
    card_ref: null,
    payment_type: 'card',
  };
}

/**
 * BIGINT columns arrive as numbers from both drivers; this keeps JavaScript
 * arithmetic on them exact. In place: `row` is the fresh row of a read
 * (copying its 38 fields for each read cost more than the conversions).
 */
export function chargeRowOf<T extends ChargeRow>(row: T): T {
  row.pk = Number(row.pk);
  row.amount_cents = Number(row.amount_cents);
  row.captured_cents = Number(row.captured_cents);
  row.voided_cents = Number(row.voided_cents);
  row.refunded_cents = Number(row.refunded_cents);
  row.linked_cents = Number(row.linked_cents);
  row.parent_pk = row.parent_pk === null ? null : Number(row.parent_pk);
  row.batch_id = row.batch_id === null ? null : Number(row.batch_id);
  row.customer_pk = row.customer_pk === null ? null : Number(row.customer_pk);
  row.payment_method_pk = row.payment_method_pk === null ? null : Number(row.payment_method_pk);
  row.schedule_pk = row.schedule_pk === null ? null : Number(row.schedule_pk);
  return row;
}

export interface NewCharge {
  merchant_id: string;
  source_id: string;
  amount_cents: number;
  card_type: string;
  last4: string;
  bin: string;
  expiry_month: number;
  expiry_year: number;
  card_number_enc: Buffer;
  request_json: string;
  idem_key: string | null;
  /** When the worker should ask the processor if this request never recorded an outcome. */
  recover_at_ms: number;
  created_at_ms: number;
  /** 0 authorizes only (`capture: false`); absent means 1. */
  auto_capture?: 0 | 1;
  /** The stored customer, saved card and schedule the charge is for (docs/api-decisions.md section 15). */
  customer_pk?: number | null;
  payment_method_pk?: number | null;
  schedule_pk?: number | null;
  /** A nonce's card number kept for later `ref-` charges; erased if the charge is not approved, or is voided. */
  ref_card_enc?: Buffer | null;
  /** Until when ref_card_enc is kept (domain/reference-card-retention.ts); required with it. */
  ref_card_until_ms?: number | null;
  /** `save_card: true`: the token an approval issues (card_ref); null when none was asked for. */
  save_card_ref?: string | null;
  /** The credential-on-file flags sent (domain/stored-credential.ts, as JSON text); null for a one-off card. */
  stored_credential?: string | null;
}

/** Inserts a charge awaiting the processor's answer; returns its reference number. */
export async function insertPendingCharge(tx: Tx, charge: NewCharge): Promise<number> {
  const refCard = charge.ref_card_enc ?? null;
  // A kept card without its end would be kept for ever: a programming error, not a request's.
  if (refCard !== null && (charge.ref_card_until_ms ?? null) === null) throw new Error('a charge keeping a reference card needs ref_card_until_ms');
  const pk = await tx.insert(
    `INSERT INTO charges (merchant_id, source_id, status, amount_cents, currency, card_type, last4, bin, expiry_month, expiry_year, card_number_enc, request_json, idem_key, next_run_at_ms, created_at_ms, updated_at_ms, auto_capture, customer_pk, payment_method_pk, schedule_pk, ref_card_enc, save_card_ref, stored_credential, ref_card_until_ms)
     VALUES (?, ?, 'pending', ?, 'USD', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      charge.merchant_id,
      charge.source_id,
      charge.amount_cents,
      charge.card_type,
      charge.last4,
      charge.bin,
      charge.expiry_month,
      charge.expiry_year,
      charge.card_number_enc,
      charge.request_json,
      charge.idem_key,
      charge.recover_at_ms,
      charge.created_at_ms,
      charge.created_at_ms,
      charge.auto_capture ?? 1,
      charge.customer_pk ?? null,
      charge.payment_method_pk ?? null,
      charge.schedule_pk ?? null,
      refCard,
      charge.save_card_ref ?? null,
      charge.stored_credential ?? null,
      refCard === null ? null : (charge.ref_card_until_ms ?? null),
    ],
  );
  if (pk === null) throw new Error('INSERT INTO charges returned no pk');
  return pk;
}

/**
 * The SET items that erase a charge's kept card (for `ref-` charges): on a
 * decline or failure, a void, an expired authorization; the worker erases the
 * others at ref_card_until_ms (eraseExpiredReferenceCards).
 */
export const ERASE_REFERENCE_CARD = 'ref_card_enc = NULL, ref_card_until_ms = NULL';

/** What a final charge keeps in place of its sealed card number. */
const ERASED = Buffer.alloc(0);

export interface Outcome {
  status: ChargeStatus;
  auth_code: string;
  avs_result_code: string;
  cvv_result_code: string;
  error_code: string | null;
  error_message: string | null;
  processor_ref: string;
  /** For a pending outcome, when to poll; null once final. */
  next_run_at_ms: number | null;
  /** A partial approval's authorized amount, which becomes the charge's amount_cents (the amount asked for stays in its request_json). */
  authorized_cents?: number | null;
  /** An approval's network transaction id (migration 023); null when the processor gave none. */
  network_transaction_id?: string | null;
}

/**
 * Records an outcome for a charge that is still pending. `awaiting` says
 * which pending it must be: `answer` (the processor has not answered yet) or
 * `review` (answered pending, being polled). Returns the charge as recorded,
 * or undefined when someone else recorded it first; then nothing changed.
 * With `joinBatch`, a charge the outcome captures (an approved sale) also
 * joins its merchant's open batch (see changeCharge).
 */
export async function recordOutcome(
  tx: Tx,
  pk: number,
  awaiting: 'answer' | 'review',
  outcome: Outcome,
  nowMs: number,
  joinBatch: boolean,
): Promise<ChargeRow | undefined> {
  // A final charge never goes to the processor again, so its sealed card
  // number is erased with the outcome; a pending one keeps it for recovery.
  const erase = outcome.status === 'pending' ? '' : ', card_number_enc = ?';
  // The copy kept for `ref-` charges outlives only an approval (docs/api-decisions.md section 15).
  const eraseRef = outcome.status === 'declined' || outcome.status === 'failed' ? `, ${ERASE_REFERENCE_CARD}` : '';
  // An approval is captured at once (and credited) unless it authorizes only, and issues the
  // saved-card token a `save_card` request asked for; a partial approval authorizes (and captures) only its amount. (SET expressions read the row as it was, hence the amount twice.)
  const partialCents = outcome.status === 'approved' ? (outcome.authorized_cents ?? null) : null;
  const authorized = partialCents === null ? 'amount_cents' : '?';
  const approved =
    outcome.status === 'approved'
      ? `, card_ref = save_card_ref, network_transaction_id = ?, stage = CASE WHEN auto_capture = 1 THEN 'captured' ELSE 'authorized' END${partialCents === null ? '' : ', amount_cents = ?'}, captured_cents = CASE WHEN auto_capture = 1 THEN ${authorized} ELSE 0 END`
      : '';
  return changeCharge(tx, {
    set: `status = ?, auth_code = ?, avs_result_code = ?, cvv_result_code = ?, error_code = ?, error_message = ?, processor_ref = ?, next_run_at_ms = ?, updated_at_ms = ?${erase}${eraseRef}${approved}`,
    values: [
      outcome.status,
      outcome.auth_code,
      outcome.avs_result_code,
      outcome.cvv_result_code,
      outcome.error_code,
      outcome.error_message,
      outcome.processor_ref,
      outcome.next_run_at_ms,
      nowMs,
      ...(erase === '' ? [] : [ERASED]),
      ...(outcome.status === 'approved' ? [outcome.network_transaction_id ?? null] : []),
      ...(partialCents === null ? [] : [partialCents, partialCents]),
    ],
    pk,
    condition: `kind = 'charge' AND status = 'pending' AND processor_ref IS ${awaiting === 'answer' ? 'NULL' : 'NOT NULL'}`,
    joinBatchWhen: joinBatch && outcome.status === 'approved' ? 'auto_capture = 1' : null,
    nowMs,
  });
}

/** One recorded change of a charge or refund row (see changeCharge). */
export interface ChargeChange {
  /** The SET list; its placeholders are bound to `values`. */
  readonly set: string;
  readonly values: readonly SqlValue[];
  /** The row changed: `pk`, only while `condition` holds. */
  readonly pk: number;
  readonly condition: string;
  /**
   * When the changed row, captured by the change, joins its merchant's open
   * batch (one being opened when there is none): a condition on the row as
   * it was before the change ('TRUE' for always), or null for never.
   */
  readonly joinBatchWhen: string | null;
  readonly nowMs: number;
}

/**
 * Runs a change and answers the row as changed (UPDATE ... RETURNING), or
 * undefined when `condition` did not hold (someone recorded it first; then
 * nothing changed): the caller's event and reply need no read after it. A
 * row joining the open batch names it in the same UPDATE: one statement and
 * one new version of the row instead of a change, a batch join and a read
 * back. On PostgreSQL the batch's id is read FOR SHARE, so a close in
 * another transaction (which updates the batch row) waits for this one's
 * commit, or went first and then leaves no open batch to name: the batch
 * cannot end between the UPDATE and the COMMIT. On SQLite one writer makes
 * that so. Only the first capture of a batch period, which finds none open,
 * opens one with joinOpenBatch.
 */
export async function changeCharge(tx: Tx, change: ChargeChange): Promise<ChargeRow | undefined> {
  const lock = tx.dialect === 'postgres' ? ' FOR SHARE' : '';
  const batch =
    change.joinBatchWhen === null
      ? ''
      : `, batch_id = CASE WHEN ${change.joinBatchWhen} THEN (${openBatchIdSql('charges.merchant_id')}${lock}) ELSE batch_id END`;
  const row = await tx.get<ChargeRow>(`UPDATE charges SET ${change.set}${batch} WHERE ${byKey('pk', change.condition)} RETURNING ${COLUMNS}`, [
    ...change.values,
    change.pk,
  ]);
  if (row === undefined) return undefined;
  const changed = chargeRowOf(row);
  if (change.joinBatchWhen !== null && changed.stage === 'captured' && changed.batch_id === null) {
    changed.batch_id = await joinOpenBatch(tx, changed.merchant_id, change.pk, change.nowMs);
  }
  return changed;
}

/** A charge of this merchant by reference number; another merchant's reads as absent. */
export async function getCharge(tx: Tx, pk: number, merchantId: string): Promise<ChargeRow | undefined> {
  const row = await tx.get<ChargeRow>(`SELECT ${COLUMNS} FROM charges WHERE ${byKey('pk', 'merchant_id = ?')}`, [pk, merchantId]);
  return row === undefined ? undefined : chargeRowOf(row);
}

/** The charge (or, by `kind`, the refund) made with an Idempotency-Key of this source (see getRowHoldingKey). */
export async function getChargeHoldingKey(tx: Tx, key: HeldKey, kind: ChargeRow['kind'] = 'charge'): Promise<ChargeRow | undefined> {
  const row = await getRowHoldingKey<ChargeRow>(tx, `SELECT ${COLUMNS} FROM charges`, key, `kind = '${kind}'`);
  return row === undefined ? undefined : chargeRowOf(row);
}

export interface DueCharge extends ChargeRow {
  card_number_enc: Buffer;
  /** The credential-on-file flags the charge was first sent with (JSON text), sent again unchanged. */
  stored_credential: string | null;
}

/**
 * The pending charge the processor knows as `processorRef` (a provider
 * callback names it so), with its sealed card, as the worker claims one; or
 * undefined when none is pending under it (unknown, or final already).
 * Served by charges_pending_processor_ref (migration 025), which holds only
 * pending charges. Processor ids are unique at one processor; should two
 * pending charges carry one, the oldest is answered.
 */
export async function getPendingChargeByProcessorRef(tx: Tx, processorRef: string): Promise<DueCharge | undefined> {
  const row = await tx.get<DueCharge>(
    `SELECT ${COLUMNS}, card_number_enc, stored_credential FROM charges
     WHERE status = 'pending' AND processor_ref IS NOT NULL AND processor_ref = ? AND kind = 'charge' AND payment_type = 'card' ORDER BY pk LIMIT 1`,
    [processorRef],
  );
  return row === undefined ? undefined : chargeRowOf(row);
}

/** The pending charge `pk` (named by its provider key in a callback), processor id or not; undefined when it is not pending. */
export async function getPendingCharge(tx: Tx, pk: number): Promise<DueCharge | undefined> {
  const row = await tx.get<DueCharge>(
    `SELECT ${COLUMNS}, card_number_enc, stored_credential FROM charges WHERE ${byKey('pk', "status = 'pending' AND kind = 'charge' AND payment_type = 'card'")}`,
    [pk],
  );
  return row === undefined ? undefined : chargeRowOf(row);
}

/**
 * Claims at most `limit` pending charges that are due, by pushing their next
 * run to `leaseUntilMs` in the same statement: two workers never process one
 * charge at once (the outer WHERE is re-checked on a row a concurrent claim
 * already moved, so PostgreSQL skips it).
 */
export async function claimDueCharges(tx: Tx, nowMs: number, leaseUntilMs: number, limit: number): Promise<DueCharge[]> {
  return claimDueOfKind<DueCharge>(tx, 'charge', `${COLUMNS}, card_number_enc, stored_credential`, nowMs, leaseUntilMs, limit);
}

/** claimDueCharges for the rows of `kind`, returning the columns `returning`. */
export async function claimDueOfKind<T extends ChargeRow>(
  tx: Tx,
  kind: ChargeRow['kind'],
  returning: string,
  nowMs: number,
  leaseUntilMs: number,
  limit: number,
): Promise<T[]> {
  const rows = await tx.all<T>(
    `UPDATE charges SET next_run_at_ms = ?
     WHERE status = 'pending' AND kind = '${kind}' AND next_run_at_ms <= ? AND payment_type = 'card'
       AND pk IN (SELECT pk FROM charges WHERE status = 'pending' AND kind = '${kind}' AND next_run_at_ms <= ? ORDER BY next_run_at_ms LIMIT ?)
     RETURNING ${returning}`,
    [leaseUntilMs, nowMs, nowMs, limit],
  );
  return rows.map((row) => chargeRowOf(row));
}

/** Sets when to look at a pending charge again (a processor that is still reviewing, or unreachable). */
export async function rescheduleCharge(tx: Tx, pk: number, nextRunAtMs: number): Promise<void> {
  await tx.run(`UPDATE charges SET next_run_at_ms = ? WHERE ${byKey('pk', "status = 'pending'")}`, [nextRunAtMs, pk]);
}

/** The card of an earlier approved charge of the merchant, for a `ref-` charge: its own kept copy, or its saved payment method. */
export interface ReferenceCard {
  pk: number;
  source_id: string;
  card_type: string;
  last4: string;
  bin: string;
  expiry_month: number;
  expiry_year: number;
  request_json: string;
  customer_pk: number | null;
  payment_method_pk: number | null;
  ref_card_enc: Buffer | null;
  /** Until when a charge's copy is kept (migration 036); null for a verification's (kept from when made). */
  ref_card_until_ms: number | null;
  /** The transaction's approval's network transaction id (migration 023), null when unknown. */
  network_transaction_id: string | null;
}

export async function getReferenceCard(tx: Tx, pk: number, merchantId: string): Promise<ReferenceCard | undefined> {
  const row =
    (await tx.get<ReferenceCard>(
      `SELECT pk, source_id, card_type, last4, bin, expiry_month, expiry_year, request_json, customer_pk, payment_method_pk, ref_card_enc, ref_card_until_ms, network_transaction_id
     FROM charges WHERE ${byKey('pk', "merchant_id = ? AND kind = 'charge' AND status = 'approved' AND payment_type = 'card'")}`,
      [pk, merchantId],
    )) ??
    // An approved verification's card (its reference numbers have a range of their own).
    (await tx.get<ReferenceCard>(
      `SELECT pk, source_id, card_type, last4, bin, expiry_month, expiry_year, request_json, NULL AS customer_pk, NULL AS payment_method_pk, ref_card_enc, NULL AS ref_card_until_ms, network_transaction_id
     FROM verifications WHERE ${byKey('pk', "merchant_id = ? AND status = 'approved'")}`,
      [pk, merchantId],
    ));
  if (row === undefined) return undefined;
  return {
    ...row,
    pk: Number(row.pk),
    expiry_month: Number(row.expiry_month),
    expiry_year: Number(row.expiry_year),
    customer_pk: row.customer_pk === null ? null : Number(row.customer_pk),
    payment_method_pk: row.payment_method_pk === null ? null : Number(row.payment_method_pk),
    ref_card_until_ms: row.ref_card_until_ms === null ? null : Number(row.ref_card_until_ms),
  };
}

/** The merchant's charges made for a customer or by a schedule, newest first. */
export async function listChargesOf(
  tx: Tx,
  merchantId: string,
  of: { customerPk: number } | { schedulePk: number },
  page: { limit: number; offset: number },
): Promise<ChargeRow[]> {
  const [column, value] = 'customerPk' in of ? ['customer_pk', of.customerPk] : ['schedule_pk', of.schedulePk];
  const rows = await tx.all<ChargeRow>(`SELECT ${COLUMNS} FROM charges WHERE ${column} = ? AND merchant_id = ? ORDER BY pk DESC LIMIT ? OFFSET ?`, [
    value,
    merchantId,
    page.limit,
    page.offset,
  ]);
  return rows.map((row) => chargeRowOf(row));
}

/** When kept reference cards are past their time: a charge's at its ref_card_until_ms, a verification's when made before `verificationsBeforeMs`. */
export interface ReferenceCardBounds {
  readonly nowMs: number;
  readonly verificationsBeforeMs: number;
}

/**
 * The tables that keep reference cards, each with the column its time is
 * counted on: charges (each its own end, migration 036), and verifications
 * (a verify's reference number is a `ref-` source too; kept from when made).
 */
const REFERENCE_CARD_TABLES = [
  { table: 'charges', column: 'ref_card_until_ms', bound: (b: ReferenceCardBounds) => b.nowMs, erase: ERASE_REFERENCE_CARD },
  { table: 'verifications', column: 'created_at_ms', bound: (b: ReferenceCardBounds) => b.verificationsBeforeMs, erase: 'ref_card_enc = NULL' },
] as const;

export async function hasExpiredReferenceCards(tx: Tx, bounds: ReferenceCardBounds): Promise<boolean> {
  for (const { table, column, bound } of REFERENCE_CARD_TABLES) {
    const found = await tx.get(`SELECT 1 AS one FROM ${table} WHERE ref_card_enc IS NOT NULL AND ${column} < ? LIMIT 1`, [bound(bounds)]);
    if (found !== undefined) return true;
  }
  return false;
}

/** Erases at most `limit` reference cards of each table that are past their time; their `ref-` charges are refused from then on. */
export async function eraseExpiredReferenceCards(tx: Tx, bounds: ReferenceCardBounds, limit: number): Promise<number> {
  let erased = 0;
  for (const { table, column, bound, erase } of REFERENCE_CARD_TABLES) {
    const result = await tx.run(
      `UPDATE ${table} SET ${erase} WHERE pk IN (
         SELECT pk FROM ${table} WHERE ref_card_enc IS NOT NULL AND ${column} < ? ORDER BY ${column} LIMIT ?)`,
      [bound(bounds), limit],
    );
    erased += result.changes;
  }
  return erased;
}
