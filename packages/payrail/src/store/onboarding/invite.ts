// Onboarding a merchant by e-mail, as the store writes it: the merchant, its
// ledger accounts and a first source without credentials, sandbox money when
// the caller gives some, and a one-time credentials link mailed to the
// developer (the mail is rendered by the caller from the link's token).
import type { MailContent } from '../../domain/mail-templates.ts';
import { type AuditNote, appendAuditNote } from '../audit-events.ts';
import type { Db, Tx } from '../db.ts';
import { issueLink } from '../link-tokens.ts';
import { queueMail } from '../mail-outbox.ts';
import { insertSource } from '../merchants.ts';
import type { WireDialect } from '../../domain/wire-dialect.ts';
import { type Funding, insertMerchantWithAccounts, postFunding } from '../merchants/create.ts';
import { getUserByEmail } from '../panel-users.ts';

/** The ids of a merchant about to be onboarded, made by the caller, and its sandbox money (null: none). */
export interface InviteIds {
  readonly merchantId: string;
  readonly sourceId: string;
  readonly funding: Funding | null;
}

export interface MerchantInvite extends InviteIds {
  readonly name: string;
  readonly email: string;
  /** The wire dialect of the merchant's first source. */
  readonly dialect: WireDialect;
  /** The credentials mail, given the link's token. */
  readonly mailOf: (token: string) => MailContent;
}

/** Writes an onboarding inside a command's transaction. */
export async function inviteMerchantIn(tx: Tx, invite: MerchantInvite, nowMs: number): Promise<void> {
  await insertMerchantWithAccounts(tx, invite.merchantId, invite.name, nowMs);
  await insertSource(tx, { id: invite.sourceId, merchant_id: invite.merchantId, name: 'Default source', dialect: invite.dialect, created_at_ms: nowMs });
  if (invite.funding !== null) await postFunding(tx, invite.merchantId, invite.funding, nowMs);
  const token = await issueLink(tx, { purpose: 'credentials', subject: invite.merchantId, email: invite.email }, nowMs);
  await queueMail(tx, 'credentials', invite.email, invite.mailOf(token), nowMs);
}

/** The operator's onboarding, audited; false (nothing made) when a panel user already has the address. */
export async function onboardMerchant(db: Db, input: { invite: MerchantInvite; nowMs: number; audit: AuditNote }): Promise<boolean> {
  return db.write(async (tx) => {
    if ((await getUserByEmail(tx, input.invite.email)) !== undefined) return false;
    await inviteMerchantIn(tx, input.invite, input.nowMs);
    await appendAuditNote(tx, input.audit, { target: input.invite.merchantId, merchantId: input.invite.merchantId });
    return true;
  });
}
