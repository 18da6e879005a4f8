// Read-only queries behind the panel's merchant pages. Every one of them
// takes the merchant id and filters on it, so a merchant user can never see
// another merchant's records: an id of another merchant reads as unknown.
// Every list is bounded by a page size and paged by primary key.
import type { Tx } from '../store/db.ts';

export const PAGE_SIZE = 25;
export const DAY_MS = 24 * 60 * 60 * 1000;
export const CHART_DAYS = 30;

export const CHARGE_STATUSES = ['approved', 'pending', 'declined', 'failed'] as const;
export type ChargeStatus = (typeof CHARGE_STATUSES)[number];

export interface ChargeListRow {
  pk: number;
  status: ChargeStatus;
  amount_cents: number;
  currency: string;
  card_type: string;
  last4: string;
  linked_cents: number;
  created_at_ms: number;
}

export interface ChargeFilters {
  readonly status: ChargeStatus | null;
  readonly fromMs: number | null;
  /** Exclusive upper bound. */
  readonly toMs: number | null;
  readonly beforePk: number | null;
}

/** One page (plus one row, to know whether there is a next page), newest first. */
export async function listCharges(tx: Tx, merchantId: string, filters: ChargeFilters): Promise<ChargeListRow[]> {
  const where = ['merchant_id = ?'];
  const params: Array<string | number> = [merchantId];
  if (filters.status !== null) {
    where.push('status = ?');
    params.push(filters.status);
  }
  if (filters.fromMs !== null) {
    where.push('created_at_ms >= ?');
    params.push(filters.fromMs);
  }
  if (filters.toMs !== null) {
    where.push('created_at_ms < ?');
    params.push(filters.toMs);
  }
  if (filters.beforePk !== null) {
    where.push('pk < ?');
    params.push(filters.beforePk);
  }
  params.push(PAGE_SIZE + 1);
  return tx.all<ChargeListRow>(
    `SELECT pk, status, amount_cents, currency, card_type, last4, linked_cents, created_at_ms FROM charges
     WHERE ${where.join(' AND ')} ORDER BY pk DESC LIMIT ?`,
    params,
  );
}

export interface ChargeRow extends ChargeListRow {
  source_id: string;
  bin: string;
  expiry_month: number;
  expiry_year: number;
  auth_code: string | null;
  avs_result_code: string | null;
  cvv_result_code: string | null;
  error_code: string | null;
  error_message: string | null;
  request_json: string;
  updated_at_ms: number;
}

export interface LinkedTransferRow {
  id: string;
  amount_cents: number;
  state: number;
  how: string;
  created_at_ms: number;
}

export async function getCharge(tx: Tx, merchantId: string, pk: number): Promise<{ charge: ChargeRow; transfers: LinkedTransferRow[] } | null> {
  const charge = await tx.get<ChargeRow>(
    `SELECT pk, status, amount_cents, currency, card_type, last4, linked_cents, created_at_ms, source_id, bin, expiry_month, expiry_year,
            auth_code, avs_result_code, cvv_result_code, error_code, error_message, request_json, updated_at_ms
     FROM charges WHERE pk = ? AND merchant_id = ?`,
    [pk, merchantId],
  );
  if (charge === undefined) return null;
  const transfers = await tx.all<LinkedTransferRow>(
    `SELECT t.id, l.amount_cents, t.state, l.how, l.created_at_ms FROM transfer_links l JOIN transfers t ON t.pk = l.transfer_pk
     WHERE l.charge_pk = ? AND t.merchant_id = ? ORDER BY l.created_at_ms LIMIT 100`,
    [pk, merchantId],
  );
  return { charge, transfers };
}

/** Which transfers a list shows: all, one public state, or those waiting (state 0 substate 9). */
export const TRANSFER_STATE_FILTERS = ['all', '0', '40', '60', '80', 'waiting'] as const;
export type TransferStateFilter = (typeof TRANSFER_STATE_FILTERS)[number];

export interface TransferListRow {
  pk: number;
  id: string;
  receiver_phone: string;
  amount_cents: number;
  service: string;
  receiver_currency: string;
  state: number;
  substate: number;
  final: number;
  waiting_for: string | null;
  created_at_ms: number;
}

const TRANSFER_LIST_COLUMNS = 'pk, id, receiver_phone, amount_cents, service, receiver_currency, state, substate, final, waiting_for, created_at_ms';

export async function listTransfers(tx: Tx, merchantId: string, filters: { state: TransferStateFilter; beforePk: number | null }): Promise<TransferListRow[]> {
  const where = ['merchant_id = ?'];
  const params: Array<string | number> = [merchantId];
  if (filters.state === 'waiting') where.push('state = 0 AND substate = 9');
  else if (filters.state !== 'all') {
    where.push('state = ?');
    params.push(Number(filters.state));
  }
  if (filters.beforePk !== null) {
    where.push('pk < ?');
    params.push(filters.beforePk);
  }
  params.push(PAGE_SIZE + 1);
  return tx.all<TransferListRow>(`SELECT ${TRANSFER_LIST_COLUMNS} FROM transfers WHERE ${where.join(' AND ')} ORDER BY pk DESC LIMIT ?`, params);
}

export interface TransferRow extends TransferListRow {
  sender_phone: string;
  receiver_country: string;
  fx_rate: string;
  received_minor: number;
  attributes_json: string;
  code: number;
  payment_id: string | null;
  provider_error_text: string | null;
  provider_error_code: string | null;
  invitation_expires_at_ms: number | null;
  updated_at_ms: number;
}

export interface TransferEventRow {
  state: number;
  substate: number;
  note: string | null;
  at_ms: number;
}

export interface TransferLinkRow {
  charge_pk: number;
  amount_cents: number;
  how: string;
  created_at_ms: number;
  charge_amount_cents: number;
  charge_status: string;
  charge_created_at_ms: number;
}

/** Lists per detail page are bounded: a transfer has a handful of events, never more than this. */
const EVENTS_LISTED_MAX = 200;

export async function getTransfer(
  tx: Tx,
  merchantId: string,
  id: string,
): Promise<{ transfer: TransferRow; events: TransferEventRow[]; link: TransferLinkRow | null } | null> {
  const transfer = await tx.get<TransferRow>(
    `SELECT ${TRANSFER_LIST_COLUMNS}, sender_phone, receiver_country, fx_rate, received_minor, attributes_json, code, payment_id,
            provider_error_text, provider_error_code, invitation_expires_at_ms, updated_at_ms
     FROM transfers WHERE merchant_id = ? AND id = ?`,
    [merchantId, id],
  );
  if (transfer === undefined) return null;
  const events = await tx.all<TransferEventRow>('SELECT state, substate, note, at_ms FROM transfer_events WHERE transfer_pk = ? ORDER BY id LIMIT ?', [
    transfer.pk,
    EVENTS_LISTED_MAX,
  ]);
  const link = await tx.get<TransferLinkRow>(
    `SELECT l.charge_pk, l.amount_cents, l.how, l.created_at_ms, c.amount_cents AS charge_amount_cents, c.status AS charge_status, c.created_at_ms AS charge_created_at_ms
     FROM transfer_links l JOIN charges c ON c.pk = l.charge_pk WHERE l.transfer_pk = ? AND c.merchant_id = ?`,
    [transfer.pk, merchantId],
  );
  return { transfer, events, link: link ?? null };
}

export interface DailyVolume {
  /** Day number since the epoch (UTC). */
  readonly day: number;
  readonly chargeCents: number;
  readonly transferCents: number;
}

/**
 * Approved card payins and transfers that did not fail, summed per UTC day
 * over the last CHART_DAYS days (today included). Days without activity are
 * present with zeros so the chart has no gaps.
 */
export async function dailyVolume(tx: Tx, merchantId: string, nowMs: number): Promise<DailyVolume[]> {
  const today = Math.floor(nowMs / DAY_MS);
  const firstDay = today - CHART_DAYS + 1;
  const fromMs = firstDay * DAY_MS;
  const charges = await tx.all<{ day: number; total: number | string }>(
    `SELECT created_at_ms / ${DAY_MS} AS day, SUM(amount_cents) AS total FROM charges
     WHERE merchant_id = ? AND created_at_ms >= ? AND status = 'approved' GROUP BY created_at_ms / ${DAY_MS}`,
    [merchantId, fromMs],
  );
  const transfers = await tx.all<{ day: number; total: number | string }>(
    `SELECT created_at_ms / ${DAY_MS} AS day, SUM(amount_cents) AS total FROM transfers
     WHERE merchant_id = ? AND created_at_ms >= ? AND state <> 80 GROUP BY created_at_ms / ${DAY_MS}`,
    [merchantId, fromMs],
  );
  // PostgreSQL returns SUM of BIGINT as NUMERIC text; the sums are far below 2^53.
  const byDay = (rows: Array<{ day: number; total: number | string }>) => new Map(rows.map((r) => [Number(r.day), Number(r.total)]));
  const chargeByDay = byDay(charges);
  const transferByDay = byDay(transfers);
  const out: DailyVolume[] = [];
  for (let day = firstDay; day <= today; day++) {
    out.push({ day, chargeCents: chargeByDay.get(day) ?? 0, transferCents: transferByDay.get(day) ?? 0 });
  }
  return out;
}
