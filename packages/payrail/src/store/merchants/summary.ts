// What the operator and the merchant see of a merchant: its row, the
// balances of its ledger accounts and its sources, read together.
import { merchantAccount, overdraftCentsOf } from '../../domain/ledger.ts';
import type { WireDialect } from '../../domain/wire-dialect.ts';
import type { Db, Tx } from '../db.ts';
import { type AccountRow, getAccount } from '../ledger.ts';
import { getMerchant, keepsReferenceCards, listSources } from '../merchants.ts';

export interface MerchantSummary {
  readonly merchant_id: string;
  readonly name: string;
  readonly payouts_must_link: boolean;
  /** Approved charges keep their card for `ref-` charges for 13 months, not 24 hours (domain/reference-card-retention.ts). */
  readonly keeps_reference_cards: boolean;
  readonly balance_cents: number;
  readonly overdraft_cents: number;
  readonly available_cents: number;
  readonly in_flight_cents: number;
  readonly paid_out_cents: number;
  readonly card_payins_cents: number;
  readonly sources: Array<{ id: string; name: string; dialect: WireDialect; revoked: boolean }>;
}

/** A merchant's summary inside a command's transaction; undefined when there is no such merchant. */
export async function summaryOf(tx: Tx, merchantId: string): Promise<MerchantSummary | undefined> {
  const merchant = await getMerchant(tx, merchantId);
  if (merchant === undefined) return undefined;
  const available = await getAccount(tx, merchantAccount(merchantId, 'available'));
  const inFlight = await getAccount(tx, merchantAccount(merchantId, 'in_flight'));
  const paidOut = await getAccount(tx, merchantAccount(merchantId, 'paid_out'));
  const cardPayins = await getAccount(tx, merchantAccount(merchantId, 'card_payins'));
  if (available === undefined || inFlight === undefined || paidOut === undefined || cardPayins === undefined) {
    throw new Error(`merchant ${merchantId} is missing ledger accounts`);
  }
  const overdraftCents = overdraftCentsOf(available.floor_cents);
  const sources = await listSources(tx, merchantId);
  return {
    merchant_id: merchant.id,
    name: merchant.name,
    payouts_must_link: merchant.payouts_must_link === 1,
    keeps_reference_cards: await keepsReferenceCards(tx, merchant.id),
    balance_cents: available.balance_cents,
    overdraft_cents: overdraftCents,
    available_cents: available.balance_cents + overdraftCents,
    in_flight_cents: inFlight.balance_cents,
    paid_out_cents: paidOut.balance_cents,
    // Card payins are debited from this account, so its balance is minus the total.
    card_payins_cents: 0 - cardPayins.balance_cents,
    sources: sources.map((s) => ({ id: s.id, name: s.name, dialect: s.dialect, revoked: s.revoked_at_ms !== null })),
  };
}

/** A merchant's summary; undefined when there is no such merchant. */
export async function merchantSummary(db: Db, merchantId: string): Promise<MerchantSummary | undefined> {
  return db.read((tx) => summaryOf(tx, merchantId));
}

/** A merchant's available-balance account (the transfer API's balance). */
export async function availableAccount(db: Db, merchantId: string): Promise<AccountRow | undefined> {
  return db.read((tx) => getAccount(tx, merchantAccount(merchantId, 'available')));
}
