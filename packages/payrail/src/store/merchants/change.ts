// Audited changes of an existing merchant (a top-up, its overdraft, the
// link-required flag, whether it keeps reference cards), each answered with the merchant's summary read in the
// same transaction.
import { floorCentsFor, merchantAccount } from '../../domain/ledger.ts';
import { type AuditNote, appendAuditNote } from '../audit-events.ts';
import type { Db, Tx } from '../db.ts';
import { setFloor } from '../ledger.ts';
import { getMerchant, setKeepsReferenceCards, setPayoutsMustLink } from '../merchants.ts';
import { type Funding, postFunding } from './create.ts';
import { type MerchantSummary, summaryOf } from './summary.ts';

export type MerchantChange =
  | { readonly kind: 'fund'; readonly funding: Funding }
  | { readonly kind: 'overdraft'; readonly overdraftCents: number }
  | { readonly kind: 'payouts_must_link'; readonly on: boolean }
  | { readonly kind: 'keeps_reference_cards'; readonly on: boolean };

export type MerchantChanged =
  | { readonly kind: 'changed'; readonly summary: MerchantSummary }
  | { readonly kind: 'not_found' }
  /** The balance is already below minus the overdraft asked for; nothing changed. */
  | { readonly kind: 'below_floor' };

/** Applies the change; false when it is refused (and wrote nothing). */
async function apply(tx: Tx, merchantId: string, change: MerchantChange, nowMs: number): Promise<boolean> {
  switch (change.kind) {
    case 'fund':
      await postFunding(tx, merchantId, change.funding, nowMs);
      return true;
    case 'overdraft':
      return setFloor(tx, merchantAccount(merchantId, 'available'), floorCentsFor(change.overdraftCents));
    case 'payouts_must_link':
      await setPayoutsMustLink(tx, merchantId, change.on);
      return true;
    case 'keeps_reference_cards':
      await setKeepsReferenceCards(tx, merchantId, change.on);
      return true;
  }
}

export async function changeMerchant(db: Db, input: { merchantId: string; change: MerchantChange; nowMs: number; audit: AuditNote }): Promise<MerchantChanged> {
  return db.write(async (tx): Promise<MerchantChanged> => {
    if ((await getMerchant(tx, input.merchantId)) === undefined) return { kind: 'not_found' };
    if (!(await apply(tx, input.merchantId, input.change, input.nowMs))) return { kind: 'below_floor' };
    const summary = await summaryOf(tx, input.merchantId);
    if (summary === undefined) throw new Error(`merchant ${input.merchantId} went missing`);
    await appendAuditNote(tx, input.audit);
    return { kind: 'changed', summary };
  });
}
