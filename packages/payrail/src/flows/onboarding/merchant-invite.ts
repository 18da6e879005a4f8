// Onboarding a merchant by e-mail: the merchant, its ledger accounts and a
// first source are made now, without credentials; the developer gets a mail
// with a one-time link to a page that issues and shows the credentials once
// (credentials-link.ts). Secrets never travel in a mail. Used when a sandbox
// sign-up is approved, and by the operator for production merchants, who
// have no public form.
import { credentialsMail } from '../../domain/mail-templates.ts';
import { isDeliverableAddress } from '../../domain/signup-form.ts';
import { fail } from '../../errors.ts';
import type { Txn } from '../../store/db.ts';
import { getUserByEmail } from '../../store/panel-users.ts';
import { type AuditActor, SYSTEM_ACTOR, writeAudited } from '../operations/audit.ts';
import { issueLink } from '../../store/link-tokens.ts';
import { LINK_TTL_MS } from '../../domain/link-token.ts';
import { queueMail } from '../../store/mail-outbox.ts';
import { fundInTx, insertBareSource, insertMerchantWithAccounts, merchantNameOf } from '../merchants/merchants.ts';
import { DEMO_FUNDING_CENTS } from '../merchants/seed.ts';
import { linkUrl, type OnboardingDeps } from './deps.ts';

export const CREDENTIALS_PATH = '/dashboard/welcome';

/** Makes the merchant and mails its one-time credentials link, in the caller's transaction; returns the merchant id. */
export async function inviteMerchantInTx(tx: Txn, deps: OnboardingDeps, input: { name: string; email: string }, nowMs: number): Promise<string> {
  const merchantId = await insertMerchantWithAccounts(tx, input.name, nowMs);
  await insertBareSource(tx, merchantId, 'Default source', nowMs);
  // Sandbox money, so a newcomer's first transfer works at once.
  if (deps.config.environment === 'sandbox') await fundInTx(tx, merchantId, DEMO_FUNDING_CENTS, nowMs);
  const token = await issueLink(tx, { purpose: 'credentials', subject: merchantId, email: input.email }, nowMs);
  const mail = credentialsMail({
    merchantName: input.name,
    url: linkUrl(deps, `${CREDENTIALS_PATH}/${token}`),
    validForMs: LINK_TTL_MS.credentials,
    environment: deps.config.environment,
  });
  await queueMail(tx, 'credentials', input.email, mail, nowMs);
  return merchantId;
}

/** The operator onboards a merchant (production has no public form): `payrail merchant onboard`. */
export async function onboardMerchant(
  deps: OnboardingDeps,
  input: { name: string; email: string },
  by: AuditActor = SYSTEM_ACTOR,
): Promise<{ merchant_id: string; email: string }> {
  const name = merchantNameOf(input.name);
  const email = input.email.trim().toLowerCase();
  if (!isDeliverableAddress(email)) fail('invalid_request', 'email must be an e-mail address');
  const event = { action: 'merchant.onboard', target: null, detail: `${name} for ${email}` } as const;
  return writeAudited(
    deps,
    by,
    event,
    async (tx) => {
      if ((await getUserByEmail(tx, email)) !== undefined) fail('invalid_request', `a panel user with email ${email} already exists`);
      return { merchant_id: await inviteMerchantInTx(tx, deps, { name, email }, deps.clock.nowMs()), email };
    },
    (done) => ({ target: done.merchant_id, merchantId: done.merchant_id }),
  );
}
