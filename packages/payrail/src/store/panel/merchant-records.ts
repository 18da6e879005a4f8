// What a merchant's record pages read (charges, transfers, credentials),
// each page in one read. Every query takes the merchant id and hands it to
// every statement, so a merchant sees only its own records.
import type { Db, Tx } from '../db.ts';
import {
  type ChargeDetail,
  type ChargeListFilters,
  type ChargeTransferLink,
  countChargeItems,
  getChargeDetail,
  listChargeItems,
  listChargeRefundItems,
  listChargeTransferLinks,
  type ChargeListItem,
} from '../panel-charges.ts';
import { type ActiveTransferKey, getActiveTransferKey, listSourcesWithActiveKey, type SourceListItem } from '../panel-merchants.ts';
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
} from '../panel-transfers.ts';
import { getTransfer } from '../transfers.ts';
import { type ListPage, readPage } from './pages.ts';

export type { ListPage };

/** A page of the merchant's charges from the filters' cursor; the counts use the same filters without it. */
export async function readChargePage(db: Db, input: { merchantId: string; filters: ChargeListFilters; pageSize: number }): Promise<ListPage<ChargeListItem>> {
  const { merchantId, filters } = input;
  const base = { ...filters, beforePk: null, afterPk: null };
  const list = {
    read: (tx: Tx, limit: number) => listChargeItems(tx, merchantId, filters, limit),
    count: (tx: Tx, newerThanPk: number | null) => countChargeItems(tx, merchantId, { ...base, afterPk: newerThanPk }),
  };
  return db.read((tx) => readPage(tx, list, filters.afterPk !== null && filters.afterPk !== undefined, input.pageSize));
}

export async function readChargeItems(db: Db, input: { merchantId: string; filters: ChargeListFilters; limit: number }): Promise<ChargeListItem[]> {
  return db.read((tx) => listChargeItems(tx, input.merchantId, input.filters, input.limit));
}

export type ChargeRecord = { charge: ChargeDetail; transfers: ChargeTransferLink[]; refunds: ChargeListItem[] };

/** A charge of the merchant with up to `linksMax` linked transfers and `refundsMax` refunds; null when it has no such charge. */
export async function readChargeRecord(db: Db, input: { merchantId: string; pk: number; linksMax: number; refundsMax: number }): Promise<ChargeRecord | null> {
  const { merchantId, pk } = input;
  return db.read(async (tx) => {
    const charge = await getChargeDetail(tx, merchantId, pk);
    if (charge === undefined) return null;
    const transfers = await listChargeTransferLinks(tx, merchantId, pk, input.linksMax);
    return { charge, transfers, refunds: await listChargeRefundItems(tx, merchantId, pk, input.refundsMax) };
  });
}

/** A page of the merchant's transfers from the filters' cursor; the counts use the same filters without it. */
export async function readTransferPage(
  db: Db,
  input: { merchantId: string; filters: TransferListFilters; pageSize: number },
): Promise<ListPage<TransferListItem>> {
  const { merchantId, filters } = input;
  const base = { ...filters, beforePk: null, afterPk: null };
  const list = {
    read: (tx: Tx, limit: number) => listTransferItems(tx, merchantId, filters, limit),
    count: (tx: Tx, newerThanPk: number | null) => countTransferItems(tx, merchantId, { ...base, afterPk: newerThanPk }),
  };
  return db.read((tx) => readPage(tx, list, filters.afterPk !== null && filters.afterPk !== undefined, input.pageSize));
}

export async function readTransferItems(db: Db, input: { merchantId: string; filters: TransferListFilters; limit: number }): Promise<TransferListItem[]> {
  return db.read((tx) => listTransferItems(tx, input.merchantId, input.filters, input.limit));
}

export async function merchantHasTransfer(db: Db, input: { merchantId: string; id: string }): Promise<boolean> {
  return (await db.read((tx) => getTransfer(tx, input.merchantId, input.id))) !== undefined;
}

export type TransferRecord = { transfer: TransferDetail; events: TransferEventItem[]; link: TransferChargeLink | null };

/** A transfer of the merchant with up to `eventsMax` events of its history and its linked charge; null when it has no such transfer. */
export async function readTransferRecord(db: Db, input: { merchantId: string; id: string; eventsMax: number }): Promise<TransferRecord | null> {
  const { merchantId } = input;
  return db.read(async (tx) => {
    const transfer = await getTransferDetail(tx, merchantId, input.id);
    if (transfer === undefined) return null;
    const events = await listTransferEvents(tx, transfer.pk, input.eventsMax);
    const link = await getTransferChargeLink(tx, merchantId, transfer.pk);
    return { transfer, events, link: link ?? null };
  });
}

/** The merchant's sources (up to `sourcesMax`) with their active key ids, and its active transfer API key. */
export async function readMerchantCredentials(
  db: Db,
  input: { merchantId: string; sourcesMax: number },
): Promise<{ sources: SourceListItem[]; transferKey: ActiveTransferKey | null }> {
  return db.read(async (tx) => ({
    sources: await listSourcesWithActiveKey(tx, input.merchantId, input.sourcesMax),
    transferKey: (await getActiveTransferKey(tx, input.merchantId)) ?? null,
  }));
}
