// Onboarding a merchant by e-mail: the merchant, its ledger accounts and a
// first source are made now, without credentials; the developer gets a mail
// with a one-time link to a page that issues and shows the credentials once
// (credentials-link.ts). Secrets never travel in a mail. Used when a sandbox
// sign-up is approved, and by the operator for production merchants, who
// have no public form.
import { newMerchantId, newSourceId } from '../../domain/ids.ts';
import { LINK_TTL_MS } from '../../domain/link-token.ts';
import { DEFAULT_WIRE_DIALECT, type WireDialect } from '../../domain/wire-dialect.ts';
import { credentialsMail } from '../../domain/mail-templates.ts';
import { isDeliverableAddress } from '../../domain/signup-form.ts';
import { fail } from '../../errors.ts';
import { type InviteIds, type MerchantInvite, onboardMerchant as onboardMerchantCommand } from '../../store/onboarding/invite.ts';
import { dialectNote, fundingOf, merchantNameOf } from '../merchants/merchants.ts';
import { DEMO_FUNDING_CENTS } from '../merchants/seed.ts';
import { type AuditActor, audited, SYSTEM_ACTOR } from '../operations/audit.ts';
import { linkUrl, type OnboardingDeps } from './deps.ts';

export const CREDENTIALS_PATH = '/dashboard/welcome';

/** Fresh ids for a merchant to onboard; in the sandbox, money so a newcomer's first transfer works at once. */
export function inviteIds(deps: OnboardingDeps): InviteIds {
  return {
    merchantId: newMerchantId(),
    sourceId: newSourceId(),
    funding: deps.config.environment === 'sandbox' ? fundingOf(DEMO_FUNDING_CENTS) : null,
  };
}

/** The onboarding of a merchant for the store to write, with its credentials mail. */
export function merchantInvite(deps: OnboardingDeps, ids: InviteIds, input: { name: string; email: string; dialect?: WireDialect }): MerchantInvite {
  return {
    ...ids,
    name: input.name,
    email: input.email,
    dialect: input.dialect ?? DEFAULT_WIRE_DIALECT,
    mailOf: (token) =>
      credentialsMail({
        merchantName: input.name,
        url: linkUrl(deps, `${CREDENTIALS_PATH}/${token}`),
        validForMs: LINK_TTL_MS.credentials,
        environment: deps.config.environment,
      }),
  };
}

/** The operator onboards a merchant (production has no public form): `payrail merchant onboard`. */
export async function onboardMerchant(
  deps: OnboardingDeps,
  input: { name: string; email: string; dialect?: WireDialect },
  by: AuditActor = SYSTEM_ACTOR,
): Promise<{ merchant_id: string; email: string; dialect: WireDialect }> {
  const name = merchantNameOf(input.name);
  const email = input.email.trim().toLowerCase();
  if (!isDeliverableAddress(email)) fail('invalid_request', 'email must be an e-mail address');
  const dialect = input.dialect ?? DEFAULT_WIRE_DIALECT;
  const event = { action: 'merchant.onboard', target: null, detail: `${name} for ${email}${dialectNote(dialect, ', ')}` } as const;
  const invite = merchantInvite(deps, inviteIds(deps), { name, email, dialect });
  return audited(deps, by, event, async (audit) => {
    if (!(await onboardMerchantCommand(deps.db, { invite, nowMs: deps.clock.nowMs(), audit }))) {
      fail('invalid_request', `a panel user with email ${email} already exists`);
    }
    return { merchant_id: invite.merchantId, email, dialect };
  });
}
