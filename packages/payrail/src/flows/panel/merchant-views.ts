// What the panel's merchant pages show: overview, charges, transfers and
// credentials. Each function is one read transaction. Every one takes the
// merchant id of the signed-in user and hands it to every query, so a
// merchant user can never see another merchant's records: an id of another
// merchant reads as unknown. Lists are pages of PANEL_PAGE_SIZE, paged by
// primary key.
import { DAY_MS } from '../../domain/clock.ts';
import { TRANSACTION_STATUSES, type TransactionStatus } from '../../domain/card-lifecycle.ts';
import type { ChargeRow } from '../../store/charges.ts';
import {
  countChargeItems,
  getChargeDetail,
  listChargeItems,
  listChargeTransferLinks,
  type ChargeDetail,
  type ChargeListItem,
  type ChargeTransferLink,
} from '../../store/panel-charges.ts';
import { getActiveTransferKey, listSourcesWithActiveKey, type ActiveTransferKey, type SourceListItem } from '../../store/panel-merchants.ts';
import {
  countTransferItems,
  getTransferChargeLink,
  getTransferDetail,
  listTransferEvents,
  listTransferItems,
  type TransferChargeLink,
  type TransferDetail,
  type TransferEventItem,
  type TransferListFilters,
  type TransferListItem,
} from '../../store/panel-transfers.ts';
import { approvedChargeCentsByDay, unfailedTransferCentsByDay, type DayTotal } from '../../store/panel-volume.ts';
import { getTransfer } from '../../store/transfers.ts';
import { listRefundsOf } from '../../store/refunds.ts';
import { summarize, type MerchantSummary } from '../merchants/merchants.ts';
import type { PanelDeps } from './deps.ts';

export type {
  ActiveTransferKey,
  ChargeRow,
  ChargeDetail,
  ChargeListItem,
  ChargeTransferLink,
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

/** The statuses the charge list filters by: those the payin API shows (docs/api-decisions.md section 10). */
export const CHARGE_STATUSES: readonly TransactionStatus[] = TRANSACTION_STATUSES;
export type ChargeStatus = TransactionStatus;

/** Which transfers a list shows: all, one public state, or those waiting (state 0 substate 9). */
export const TRANSFER_STATE_FILTERS = ['all', '0', '40', '60', '80', 'waiting'] as const;
export type TransferStateFilter = (typeof TRANSFER_STATE_FILTERS)[number];

/**
 * One page of a list, newest first: the cursors of the newer and older pages
 * when there are such, how many rows match the filters, and how many of those
 * come before this page (it shows rows offset+1 to offset+rows.length).
 */
export interface ListPage<T> {
  readonly rows: T[];
  readonly newerAfter: number | null;
  readonly nextBefore: number | null;
  readonly total: number;
  readonly offset: number;
}

/** The page's cursors, in the list's filters; a page holds at most PANEL_PAGE_SIZE rows. */
export interface PageCursor {
  readonly beforePk: number | null;
  readonly afterPk: number | null;
}

/**
 * A page from up to PANEL_PAGE_SIZE + 1 rows read in the list's order (the
 * extra row is dropped: only the counts decide what is newer and older),
 * with the count of all matching rows and of those newer than its first.
 */
async function toPage<T extends { pk: number }>(
  read: (limit: number) => Promise<T[]>,
  cursor: PageCursor,
  count: (newerThanPk: number | null) => Promise<number>,
): Promise<ListPage<T>> {
  const all = await read(PANEL_PAGE_SIZE + 1);
  // Going newer, the rows come back newest first but the extra one is the newest.
  const rows = cursor.afterPk !== null ? all.slice(Math.max(0, all.length - PANEL_PAGE_SIZE)) : all.slice(0, PANEL_PAGE_SIZE);
  const total = await count(null);
  const offset = rows.length === 0 ? 0 : await count(Number(rows[0]!.pk));
  return {
    rows,
    total,
    offset,
    newerAfter: offset > 0 ? Number(rows[0]!.pk) : null,
    nextBefore: rows.length > 0 && offset + rows.length < total ? Number(rows[rows.length - 1]!.pk) : null,
  };
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
  return deps.db.read(async (tx) => {
    const summary = await summarize(tx, merchantId);
    const today = Math.floor(deps.clock.nowMs() / DAY_MS);
    const fromMs = (today - VOLUME_CHART_DAYS + 1) * DAY_MS;
    const charges = await approvedChargeCentsByDay(tx, merchantId, fromMs);
    const transfers = await unfailedTransferCentsByDay(tx, merchantId, fromMs);
    return { summary, days: dailyVolume(charges, transfers, today) };
  });
}

export interface ChargeFilters extends PageCursor {
  readonly status: ChargeStatus | null;
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
  const base = { status: filters.status, fromMs: filters.fromMs, toMs: endOfDay(filters.toDayMs), beforePk: null, afterPk: null };
  return deps.db.read((tx) =>
    toPage(
      (limit) => listChargeItems(tx, merchantId, { ...base, beforePk: filters.beforePk, afterPk: filters.afterPk }, limit),
      filters,
      (newerThanPk) => countChargeItems(tx, merchantId, { ...base, afterPk: newerThanPk }),
    ),
  );
}

/** The whole filtered charge list for a CSV export (no page cursor), bounded by EXPORT_ROWS_MAX. */
export async function chargeExport(deps: PanelDeps, merchantId: string, filters: Omit<ChargeFilters, keyof PageCursor>): Promise<ExportRows<ChargeListItem>> {
  const toMs = endOfDay(filters.toDayMs);
  const rows = await deps.db.read((tx) =>
    listChargeItems(tx, merchantId, { status: filters.status, fromMs: filters.fromMs, toMs, beforePk: null }, EXPORT_ROWS_MAX + 1),
  );
  return toExport(rows);
}

/**
 * A charge (or refund) of the merchant with the transfers linked to it and
 * its refunds, or null when the merchant has no such charge.
 */
export async function chargeDetail(
  deps: PanelDeps,
  merchantId: string,
  pk: number,
): Promise<{ charge: ChargeDetail; transfers: ChargeTransferLink[]; refunds: ChargeRow[] } | null> {
  return deps.db.read(async (tx) => {
    const charge = await getChargeDetail(tx, merchantId, pk);
    if (charge === undefined) return null;
    const transfers = await listChargeTransferLinks(tx, merchantId, pk, CHARGE_LINKS_LISTED_MAX);
    return { charge, transfers, refunds: await listRefundsOf(tx, merchantId, pk, CHARGE_REFUNDS_LISTED_MAX) };
  });
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
  const base = transferListFilters({ ...filters, beforePk: null, afterPk: null });
  return deps.db.read((tx) =>
    toPage(
      (limit) => listTransferItems(tx, merchantId, transferListFilters(filters), limit),
      filters,
      (newerThanPk) => countTransferItems(tx, merchantId, { ...base, afterPk: newerThanPk }),
    ),
  );
}

/** The whole filtered transfer list for a CSV export (no page cursor), bounded by EXPORT_ROWS_MAX. */
export async function transferExport(
  deps: PanelDeps,
  merchantId: string,
  filters: Omit<TransferFilters, keyof PageCursor>,
): Promise<ExportRows<TransferListItem>> {
  const rows = await deps.db.read((tx) =>
    listTransferItems(tx, merchantId, transferListFilters({ ...filters, beforePk: null, afterPk: null }), EXPORT_ROWS_MAX + 1),
  );
  return toExport(rows);
}

export async function transferExists(deps: PanelDeps, merchantId: string, id: string): Promise<boolean> {
  return (await deps.db.read((tx) => getTransfer(tx, merchantId, id))) !== undefined;
}

/** A transfer of the merchant with its state history and linked charge, or null when the merchant has no such transfer. */
export async function transferDetail(
  deps: PanelDeps,
  merchantId: string,
  id: string,
): Promise<{ transfer: TransferDetail; events: TransferEventItem[]; link: TransferChargeLink | null } | null> {
  return deps.db.read(async (tx) => {
    const transfer = await getTransferDetail(tx, merchantId, id);
    if (transfer === undefined) return null;
    const events = await listTransferEvents(tx, transfer.pk, EVENTS_LISTED_MAX);
    const link = await getTransferChargeLink(tx, merchantId, transfer.pk);
    return { transfer, events, link: link ?? null };
  });
}

/** The merchant's sources with their active key ids, and its active transfer API key. Never a secret. */
export async function merchantCredentials(deps: PanelDeps, merchantId: string): Promise<{ sources: SourceListItem[]; transferKey: ActiveTransferKey | null }> {
  return deps.db.read(async (tx) => ({
    sources: await listSourcesWithActiveKey(tx, merchantId, SOURCES_LISTED_MAX),
    transferKey: (await getActiveTransferKey(tx, merchantId)) ?? null,
  }));
}
