// What a merchant's overview page reads, in one read: the merchant's summary
// (balances and sources, as store/merchants/summary.ts reads it everywhere)
// and its daily volume since a day.
import type { Db } from '../db.ts';
import { type MerchantSummary, summaryOf } from '../merchants/summary.ts';
import { approvedChargeCentsByDay, type DayTotal, unfailedTransferCentsByDay } from '../panel-volume.ts';

export type { DayTotal };

export type MerchantOverviewRows =
  | { readonly kind: 'unknown' }
  | { readonly kind: 'found'; readonly summary: MerchantSummary; readonly chargeDays: DayTotal[]; readonly transferDays: DayTotal[] };

export async function readMerchantOverview(db: Db, input: { merchantId: string; fromMs: number }): Promise<MerchantOverviewRows> {
  const { merchantId, fromMs } = input;
  return db.read(async (tx): Promise<MerchantOverviewRows> => {
    const summary = await summaryOf(tx, merchantId);
    if (summary === undefined) return { kind: 'unknown' };
    const chargeDays = await approvedChargeCentsByDay(tx, merchantId, fromMs);
    const transferDays = await unfailedTransferCentsByDay(tx, merchantId, fromMs);
    return { kind: 'found', summary, chargeDays, transferDays };
  });
}
