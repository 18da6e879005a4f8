// The reservation of a check charge, refund or credit (behaviour.md section
// 17): one write transaction that reserves the Idempotency-Key (if any),
// inserts the charges row (payment_type 'check', status pending, the account
// sealed in card_number_enc, card columns empty, no next_run_at_ms so card
// recovery never picks it) and its ACH entry in 'submitting'; a refund or
// credit also holds its amount from the merchant's available balance
// (transitions.ts holdAchCredit). Any refusal rolls all of it back, the key
// included. The network is asked afterwards, outside any transaction.
import { recordCheckRunIn } from '../vault/schedule-runs.ts';
import type { AchDirection, SecCode } from '../../domain/ach.ts';
import type { Clock } from '../../domain/clock.ts';
import { command, Refusal } from '../command.ts';
import type { Db, Tx } from '../db.ts';
import { getCustomer } from '../customers.ts';
import { reserveKey } from '../idempotency.ts';
import { getTransaction, type TransactionRow } from '../transactions.ts';
import { insertAchEntry } from './entries.ts';
import { holdAchCredit } from './transitions.ts';

/** An Idempotency-Key to reserve; keys older than `ttlMs` are free again. */
export interface CheckKeyClaim {
  readonly sourceId: string;
  readonly idemKey: string;
  readonly requestHash: string;
  readonly ttlMs: number;
}

export interface NewCheckRow {
  readonly merchantId: string;
  readonly sourceId: string;
  /** A check charge is a 'charge' (debit); a refund or an unmatched credit a 'refund' (credit), with its parent or none. */
  readonly kind: 'charge' | 'refund';
  readonly parentPk: number | null;
  readonly amountCents: number;
  /** The account number sealed for `sourceId` (crypto/card-cipher.ts, field card_number). */
  readonly accountSealed: Buffer;
  readonly last4: string;
  readonly requestJson: string;
  readonly customerPk: number | null;
  /** A saved check payment method the account came from: it must still be live when the row is written. */
  readonly paymentMethodPk: number | null;
  /** The recurring schedule whose run this charge is (transaction_details.schedule_id); null otherwise. */
  readonly schedulePk?: number | null;
  readonly accountName: string;
  readonly routingNumber: string;
  readonly accountType: string;
  readonly secCode: SecCode;
  /** The ACH network connector's name: every later call goes there. */
  readonly network: string;
  /** When the worker asks the network again should this request never record the answer. */
  readonly retryAfterMs: number;
}

export type CheckRefusalReason = 'method_not_found' | 'not_settled' | 'exceeds_refundable' | 'below_floor';

export type CheckReservation =
  | { readonly kind: 'taken' }
  | { readonly kind: 'reserved'; readonly row: TransactionRow }
  | { readonly kind: 'refused'; readonly reason: CheckRefusalReason };

/**
 * `scheduleRun`: the check is a schedule's run of that date, whose
 * (schedule, run date) row is written in the same transaction, so a date is
 * charged at most once; a date already run (or a schedule changed since it
 * was claimed) reads as taken and rolls everything back.
 */
export function reserveCheck(
  db: Db,
  input: { clock: Clock; key: CheckKeyClaim | null; row: NewCheckRow; scheduleRun?: { schedulePk: number; runDate: string } },
): Promise<CheckReservation> {
  return command(db, async (tx): Promise<CheckReservation> => {
    const nowMs = input.clock.nowMs();
    if (input.key !== null) {
      const { sourceId, idemKey, requestHash, ttlMs } = input.key;
      if (!(await reserveKey(tx, { sourceId, idemKey, requestHash, nowMs, staleAtOrBeforeMs: nowMs - ttlMs }))) return { kind: 'taken' };
    }
    const reserved = await reserveCheckIn(tx, input.row, input.key?.idemKey ?? null, nowMs);
    if (reserved.kind === 'refused') throw new Refusal<CheckReservation>(reserved);
    const run = input.scheduleRun;
    if (run !== undefined && !(await recordCheckRunIn(tx, run.schedulePk, run.runDate, reserved.row.pk, nowMs))) {
      throw new Refusal<CheckReservation>({ kind: 'taken' });
    }
    return reserved;
  });
}

/**
 * The check row and its entry (and a credit's hold) inside the caller's
 * transaction: a schedule's run reserves its charge in the transaction that
 * records the run. A refusal is answered; the caller rolls back.
 */
export async function reserveCheckIn(tx: Tx, row: NewCheckRow, idemKey: string | null, nowMs: number): Promise<Exclude<CheckReservation, { kind: 'taken' }>> {
  const refused = (reason: CheckRefusalReason) => ({ kind: 'refused', reason }) as const;
  if (row.paymentMethodPk !== null && !(await methodLives(tx, row.merchantId, row.paymentMethodPk))) return refused('method_not_found');
  // A refund goes to a check that is still settled (a return since the caller looked takes it out of reach).
  if (row.parentPk !== null && !(await parentSettled(tx, row.merchantId, row.parentPk))) return refused('not_settled');
  const pk = await insertCheckRow(tx, row, idemKey, await customerOf(tx, row.merchantId, row.customerPk), nowMs);
  await insertAchEntry(tx, {
    chargePk: pk,
    merchantId: row.merchantId,
    direction: row.kind === 'charge' ? 'debit' : ('credit' satisfies AchDirection),
    amountCents: row.amountCents,
    accountName: row.accountName,
    routingNumber: row.routingNumber,
    accountType: row.accountType,
    secCode: row.secCode,
    network: row.network,
    retryAtMs: nowMs + row.retryAfterMs,
    nowMs,
  });
  if (row.kind === 'refund') {
    const held = await holdAchCredit(tx, { chargePk: pk, merchantId: row.merchantId, parentPk: row.parentPk, amountCents: row.amountCents, nowMs });
    // The row and entry just written go with the caller's rollback.
    if (held !== 'held') return refused(held);
  }
  const reserved = await getTransaction(tx, pk, row.merchantId);
  if (reserved === undefined) throw new Error(`check ${pk} vanished in its own reservation`);
  return { kind: 'reserved', row: reserved };
}

async function insertCheckRow(tx: Tx, row: NewCheckRow, idemKey: string | null, customerPk: number | null, nowMs: number): Promise<number> {
  const pk = await tx.insert(
    `INSERT INTO charges (merchant_id, source_id, status, amount_cents, currency, card_type, last4, bin, expiry_month, expiry_year, card_number_enc, request_json, idem_key,
       next_run_at_ms, created_at_ms, updated_at_ms, auto_capture, customer_pk, payment_method_pk, kind, parent_pk, payment_type, schedule_pk)
     VALUES (?, ?, 'pending', ?, 'USD', '', ?, '', 0, 0, ?, ?, ?, NULL, ?, ?, 1, ?, ?, ?, ?, 'check', ?)`,
    [
      row.merchantId,
      row.sourceId,
      row.amountCents,
      row.last4,
      row.accountSealed,
      row.requestJson,
      idemKey,
      nowMs,
      nowMs,
      customerPk,
      row.paymentMethodPk,
      row.kind,
      row.parentPk,
      row.schedulePk ?? null,
    ],
  );
  if (pk === null) throw new Error('INSERT INTO charges returned no pk');
  return pk;
}

async function methodLives(tx: Tx, merchantId: string, pk: number): Promise<boolean> {
  const row = await tx.get("SELECT 1 AS one FROM payment_methods WHERE pk = ? AND merchant_id = ? AND method_type = 'check' AND deleted_at_ms IS NULL", [
    pk,
    merchantId,
  ]);
  return row !== undefined;
}

async function parentSettled(tx: Tx, merchantId: string, parentPk: number): Promise<boolean> {
  const row = await tx.get("SELECT 1 AS one FROM ach_entries WHERE charge_pk = ? AND merchant_id = ? AND state = 'settled' AND direction = 'debit'", [
    parentPk,
    merchantId,
  ]);
  return row !== undefined;
}

/** The customer the request links the check to, when it is the merchant's (else none, as for cards). */
async function customerOf(tx: Tx, merchantId: string, customerPk: number | null): Promise<number | null> {
  if (customerPk === null) return null;
  return (await getCustomer(tx, merchantId, customerPk)) === undefined ? null : customerPk;
}

/** A check charge's sealed account, for its refund's entry, which pays the same account. */
export interface SealedCheckAccount {
  readonly source_id: string;
  readonly card_number_enc: Buffer;
}

export async function readSealedCheckAccount(db: Db, pk: number, merchantId: string): Promise<SealedCheckAccount | undefined> {
  const row = await db.read((tx) =>
    tx.get<{ source_id: string; card_number_enc: Buffer }>(
      "SELECT source_id, card_number_enc FROM charges WHERE pk = ? AND merchant_id = ? AND payment_type = 'check'",
      [pk, merchantId],
    ),
  );
  return row === undefined ? undefined : { source_id: String(row.source_id), card_number_enc: row.card_number_enc };
}

/** A transaction of the merchant with its check facts (undefined when absent). */
export function readCheckTransaction(db: Db, pk: number, merchantId: string): Promise<TransactionRow | undefined> {
  return db.read((tx) => getTransaction(tx, pk, merchantId));
}
