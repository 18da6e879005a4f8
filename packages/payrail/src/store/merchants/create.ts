// Making a merchant: its row and ledger accounts, and either its first
// credentials at once (the operator's `merchant create`) or a bare source
// whose credentials a one-time link issues later (store/onboarding).
import type { IssuedKey } from '../../domain/credentials.ts';
import { MERCHANT_ACCOUNT_KINDS, merchantAccount, OPERATOR_FUNDING_ACCOUNT } from '../../domain/ledger.ts';
import { type AuditNote, appendAuditNote } from '../audit-events.ts';
import type { Db, Tx } from '../db.ts';
import { createAccount, post } from '../ledger.ts';
import { insertMerchant } from '../merchants.ts';
import { type NewSource, storeSource, storeTransferKey } from './credentials.ts';

/** A new merchant's row and ledger accounts, inside a command's transaction. */
export async function insertMerchantWithAccounts(tx: Tx, merchantId: string, name: string, nowMs: number): Promise<void> {
  await insertMerchant(tx, { id: merchantId, name, payouts_must_link: 0, created_at_ms: nowMs });
  for (const kind of MERCHANT_ACCOUNT_KINDS) {
    // Only the available balance has a floor (minus the overdraft, 0 at first).
    await createAccount(tx, { id: merchantAccount(merchantId, kind), merchantId, kind, floorCents: kind === 'available' ? 0 : null, nowMs });
  }
}

/** A top-up: the posting's reference, made by the caller, and its amount. */
export interface Funding {
  readonly refId: string;
  readonly amountCents: number;
}

/** A posting from the operator's funding account to a merchant, inside a command's transaction. */
export async function postFunding(tx: Tx, merchantId: string, funding: Funding, nowMs: number): Promise<void> {
  await createAccount(tx, { id: OPERATOR_FUNDING_ACCOUNT, merchantId: null, kind: 'operator_funding', floorCents: null, nowMs });
  await post(tx, {
    kind: 'merchant.fund',
    debitAccountId: OPERATOR_FUNDING_ACCOUNT,
    creditAccountId: merchantAccount(merchantId, 'available'),
    amountCents: funding.amountCents,
    merchantId,
    refId: funding.refId,
    nowMs,
  });
}

/** An audited merchant creation with its transfer key and a first source with its credentials. */
export async function createMerchantWithCredentials(
  db: Db,
  input: { merchantId: string; name: string; transferKey: IssuedKey; source: NewSource; nowMs: number; audit: AuditNote },
): Promise<void> {
  await db.write(async (tx) => {
    await insertMerchantWithAccounts(tx, input.merchantId, input.name, input.nowMs);
    await storeTransferKey(tx, input.merchantId, input.transferKey, input.nowMs);
    await storeSource(tx, input.merchantId, input.source, input.nowMs);
    await appendAuditNote(tx, input.audit, { target: input.merchantId, merchantId: input.merchantId });
  });
}
