// What the panel's merchant pages show: overview, charges, transfers and
// credentials. Each function is one read (store/panel/). Every one takes the
// merchant id of the signed-in user and hands it to every query, so a
// merchant user can never see another merchant's records: an id of another
// merchant reads as unknown. Lists are pages of PANEL_PAGE_SIZE, paged by
// primary key.
import { ACH_STATUS_NAMES } from '../../domain/ach.ts';
import { DAY_MS } from '../../domain/clock.ts';
import { transactionStatusOf } from '../../domain/card-lifecycle.ts';
import { fail } from '../../errors.ts';
import type { ChargeRow } from '../../store/charges.ts';
import {
  type ListPage,
  merchantHasTransfer,
  readChargeItems,
  readChargePage,
  readChargeRecord,
  readMerchantCredentials,
  readTransferItems,
  readTransferPage,
  readTransferRecord,
} from '../../store/panel/merchant-records.ts';
import { type DayTotal, readMerchantOverview } from '../../store/panel/overview.ts';
import {
  type CheckAccountDetail,
  type ChargeDetail,
  type ChargeListItem,
  type ChargeTransferLink,
  PANEL_CHARGE_STATUSES,
  PANEL_PAYMENT_TYPES,
  type PanelChargeStatus,
  type PanelPaymentType,
} from '../../store/panel-charges.ts';
import type { ActiveTransferKey, SourceListItem } from '../../store/panel-merchants.ts';
import type { TransferChargeLink, TransferDetail, TransferEventItem, TransferListFilters, TransferListItem } from '../../store/panel-transfers.ts';
import type { MerchantSummary } from '../merchants/merchants.ts';
import { checkActionsOffered, checkRulesNowMs, type OfferedCheckAction } from './charge-actions.ts';
import type { PanelDeps } from './deps.ts';

export type {
  ActiveTransferKey,
  ListPage,
  ChargeRow,
  ChargeDetail,
  ChargeListItem,
  ChargeTransferLink,
  CheckAccountDetail,
  PanelPaymentType,
  SourceListItem,
  TransferChargeLink,
  TransferDetail,
  TransferEventItem,
  TransferListItem,
};

/** Rows per page of the charge and transfer lists. */
export const PANEL_PAGE_SIZE = 25;
/** Days the overview's volume chart covers, today included. */
export const VOLUME_CHART_DAYS = 30;
/** A charge is linked to a few transfers at most; its page lists no more than this. */
const CHARGE_LINKS_LISTED_MAX = 100;
/** A charge has a few refunds at most; its page lists no more than this. */
const CHARGE_REFUNDS_LISTED_MAX = 100;
/** A transfer has a handful of events; its page lists no more than this. */
const EVENTS_LISTED_MAX = 200;
/** A merchant has a handful of sources; the credentials page lists no more than this. */
const SOURCES_LISTED_MAX = 200;

/** Most rows a CSV export of a list holds; a longer list is cut (and the export says so). */
export const EXPORT_ROWS_MAX = 10_000;

/**
 * The statuses the charge list filters by: those the payin API shows
 * (docs/api-decisions.md section 10), a card's from its lifecycle facts and
 * a check's from its ACH entry state (adds originated and returned).
 */
export const CHARGE_STATUSES: readonly PanelChargeStatus[] = PANEL_CHARGE_STATUSES;
export type ChargeStatus = PanelChargeStatus;

/** The payment types the charge list filters by (query `payment_type`). */
export const CHARGE_PAYMENT_TYPES: readonly PanelPaymentType[] = PANEL_PAYMENT_TYPES;

/**
 * The status a charge shows on its page, its list row and its CSV line: a
 * check's from its ACH entry state (ACH_STATUS_NAMES; no entry yet reads as
 * submitting), a card's from its lifecycle facts, as the payin API shows them.
 */
export function chargeStatusOf(charge: Pick<ChargeListItem, 'payment_type' | 'ach_state' | 'status' | 'stage' | 'op'>): ChargeStatus {
  if (charge.payment_type === 'check') return ACH_STATUS_NAMES[charge.ach_state ?? 'submitting'] as ChargeStatus;
  return transactionStatusOf(charge);
}

/** Which transfers a list shows: all, one public state, or those waiting (state 0 substate 9). */
export const TRANSFER_STATE_FILTERS = ['all', '0', '40', '60', '80', 'waiting'] as const;
export type TransferStateFilter = (typeof TRANSFER_STATE_FILTERS)[number];

/** The page's cursors, in the list's filters; a page holds at most PANEL_PAGE_SIZE rows. */
export interface PageCursor {
  readonly beforePk: number | null;
  readonly afterPk: number | null;
}

/** All rows of a list up to EXPORT_ROWS_MAX, newest first, and whether there were more. */
export interface ExportRows<T> {
  readonly rows: T[];
  readonly cut: boolean;
}

/** Rows were read with one extra beyond the limit: its presence means the export is cut. */
function toExport<T>(rows: T[]): ExportRows<T> {
  return { rows: rows.slice(0, EXPORT_ROWS_MAX), cut: rows.length > EXPORT_ROWS_MAX };
}

export interface DailyVolume {
  /** Day number since the epoch (UTC). */
  readonly day: number;
  readonly chargeCents: number;
  readonly transferCents: number;
}

/**
 * Approved card payins and transfers that did not fail, summed per UTC day
 * over the last VOLUME_CHART_DAYS days (today included). Days without
 * activity are present with zeros so the chart has no gaps.
 */
function dailyVolume(charges: readonly DayTotal[], transfers: readonly DayTotal[], today: number): DailyVolume[] {
  const byDay = (totals: readonly DayTotal[]) => new Map(totals.map((t) => [t.day, t.cents]));
  const chargeByDay = byDay(charges);
  const transferByDay = byDay(transfers);
  const out: DailyVolume[] = [];
  for (let day = today - VOLUME_CHART_DAYS + 1; day <= today; day++) {
    out.push({ day, chargeCents: chargeByDay.get(day) ?? 0, transferCents: transferByDay.get(day) ?? 0 });
  }
  return out;
}

/** The overview: the merchant's balances and its daily volume. */
export async function merchantOverview(deps: PanelDeps, merchantId: string): Promise<{ summary: MerchantSummary; days: DailyVolume[] }> {
  const today = Math.floor(deps.clock.nowMs() / DAY_MS);
  const read = await readMerchantOverview(deps.db, { merchantId, fromMs: (today - VOLUME_CHART_DAYS + 1) * DAY_MS });
  if (read.kind === 'unknown') fail('not_found', `merchant ${merchantId} not found`);
  return { summary: read.summary, days: dailyVolume(read.chargeDays, read.transferDays, today) };
}

export interface ChargeFilters extends PageCursor {
  readonly status: ChargeStatus | null;
  /** Cards or checks only; null for both. */
  readonly paymentType: PanelPaymentType | null;
  /** Start of the first UTC day included. */
  readonly fromMs: number | null;
  /** Start of the last UTC day included: the whole of that day is. */
  readonly toDayMs: number | null;
}

/** The exclusive upper bound of a list whose last day is included whole. */
function endOfDay(toDayMs: number | null): number | null {
  return toDayMs === null ? null : toDayMs + DAY_MS;
}

export async function chargePage(deps: PanelDeps, merchantId: string, filters: ChargeFilters): Promise<ListPage<ChargeListItem>> {
  const chargeFilters = {
    status: filters.status,
    paymentType: filters.paymentType,
    fromMs: filters.fromMs,
    toMs: endOfDay(filters.toDayMs),
    beforePk: filters.beforePk,
    afterPk: filters.afterPk,
  };
  return readChargePage(deps.db, { merchantId, filters: chargeFilters, pageSize: PANEL_PAGE_SIZE });
}

/** The whole filtered charge list for a CSV export (no page cursor), bounded by EXPORT_ROWS_MAX. */
export async function chargeExport(deps: PanelDeps, merchantId: string, filters: Omit<ChargeFilters, keyof PageCursor>): Promise<ExportRows<ChargeListItem>> {
  const toMs = endOfDay(filters.toDayMs);
  const rows = await readChargeItems(deps.db, {
    merchantId,
    filters: { status: filters.status, paymentType: filters.paymentType, fromMs: filters.fromMs, toMs, beforePk: null },
    limit: EXPORT_ROWS_MAX + 1,
  });
  return toExport(rows);
}

/**
 * A charge (or refund) of the merchant with the transfers linked to it, its
 * refunds and, for a check, the void or refund its page offers now; null
 * when the merchant has no such charge.
 */
export async function chargeDetail(
  deps: PanelDeps,
  merchantId: string,
  pk: number,
): Promise<{ charge: ChargeDetail; transfers: ChargeTransferLink[]; refunds: ChargeListItem[]; checkActions: OfferedCheckAction[] } | null> {
  const record = await readChargeRecord(deps.db, { merchantId, pk, linksMax: CHARGE_LINKS_LISTED_MAX, refundsMax: CHARGE_REFUNDS_LISTED_MAX });
  if (record === null) return null;
  const checkActions =
    record.charge.check === null
      ? []
      : checkActionsOffered({ ...record.charge, processed_at_ach_ms: record.charge.check?.submitted_ach_ms ?? null }, await checkRulesNowMs(deps, merchantId));
  return { ...record, checkActions };
}

export interface TransferFilters extends PageCursor {
  readonly state: TransferStateFilter;
  /** Start of the first UTC day included. */
  readonly fromMs: number | null;
  /** Start of the last UTC day included: the whole of that day is. */
  readonly toDayMs: number | null;
  /** One corridor (service id), or null for all. */
  readonly service: string | null;
}

/** Every transfer, no filter: the first page of the list. */
export const NO_TRANSFER_FILTERS: TransferFilters = { state: 'all', fromMs: null, toDayMs: null, service: null, beforePk: null, afterPk: null };

function transferListFilters(filters: TransferFilters): TransferListFilters {
  const state = filters.state === 'all' ? null : filters.state === 'waiting' ? 'waiting' : Number(filters.state);
  return { state, fromMs: filters.fromMs, toMs: endOfDay(filters.toDayMs), service: filters.service, beforePk: filters.beforePk, afterPk: filters.afterPk };
}

export async function transferPage(deps: PanelDeps, merchantId: string, filters: TransferFilters): Promise<ListPage<TransferListItem>> {
  return readTransferPage(deps.db, { merchantId, filters: transferListFilters(filters), pageSize: PANEL_PAGE_SIZE });
}

/** The whole filtered transfer list for a CSV export (no page cursor), bounded by EXPORT_ROWS_MAX. */
export async function transferExport(
  deps: PanelDeps,
  merchantId: string,
  filters: Omit<TransferFilters, keyof PageCursor>,
): Promise<ExportRows<TransferListItem>> {
  const rows = await readTransferItems(deps.db, {
    merchantId,
    filters: transferListFilters({ ...filters, beforePk: null, afterPk: null }),
    limit: EXPORT_ROWS_MAX + 1,
  });
  return toExport(rows);
}

export async function transferExists(deps: PanelDeps, merchantId: string, id: string): Promise<boolean> {
  return merchantHasTransfer(deps.db, { merchantId, id });
}

/** A transfer of the merchant with its state history and linked charge, or null when the merchant has no such transfer. */
export async function transferDetail(
  deps: PanelDeps,
  merchantId: string,
  id: string,
): Promise<{ transfer: TransferDetail; events: TransferEventItem[]; link: TransferChargeLink | null } | null> {
  return readTransferRecord(deps.db, { merchantId, id, eventsMax: EVENTS_LISTED_MAX });
}

/** The merchant's sources with their active key ids, and its active transfer API key. Never a secret. */
export async function merchantCredentials(deps: PanelDeps, merchantId: string): Promise<{ sources: SourceListItem[]; transferKey: ActiveTransferKey | null }> {
  return readMerchantCredentials(deps.db, { merchantId, sourcesMax: SOURCES_LISTED_MAX });
}
