// What a merchant's overview page reads, in one read: the merchant with its
// ledger accounts and sources, and its daily volume since a day.
import { merchantAccount } from '../../domain/ledger.ts';
import type { Db } from '../db.ts';
import { type AccountRow, getAccount } from '../ledger.ts';
import { getMerchant, listSources, type MerchantRow, type SourceRow } from '../merchants.ts';
import { approvedChargeCentsByDay, type DayTotal, unfailedTransferCentsByDay } from '../panel-volume.ts';

export type { DayTotal };

export type MerchantOverviewRows =
  | { readonly kind: 'unknown' }
  | {
      readonly kind: 'found';
      readonly merchant: MerchantRow;
      readonly available: AccountRow;
      readonly inFlight: AccountRow;
      readonly paidOut: AccountRow;
      readonly cardPayins: AccountRow;
      readonly sources: SourceRow[];
      readonly chargeDays: DayTotal[];
      readonly transferDays: DayTotal[];
    };

export async function readMerchantOverview(db: Db, input: { merchantId: string; fromMs: number }): Promise<MerchantOverviewRows> {
  const { merchantId, fromMs } = input;
  return db.read(async (tx): Promise<MerchantOverviewRows> => {
    const merchant = await getMerchant(tx, merchantId);
    if (merchant === undefined) return { kind: 'unknown' };
    const available = await getAccount(tx, merchantAccount(merchantId, 'available'));
    const inFlight = await getAccount(tx, merchantAccount(merchantId, 'in_flight'));
    const paidOut = await getAccount(tx, merchantAccount(merchantId, 'paid_out'));
    const cardPayins = await getAccount(tx, merchantAccount(merchantId, 'card_payins'));
    if (available === undefined || inFlight === undefined || paidOut === undefined || cardPayins === undefined) {
      throw new Error(`merchant ${merchantId} is missing ledger accounts`);
    }
    const sources = await listSources(tx, merchantId);
    const chargeDays = await approvedChargeCentsByDay(tx, merchantId, fromMs);
    const transferDays = await unfailedTransferCentsByDay(tx, merchantId, fromMs);
    return { kind: 'found', merchant, available, inFlight, paidOut, cardPayins, sources, chargeDays, transferDays };
  });
}
