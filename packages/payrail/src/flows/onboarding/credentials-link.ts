// The one-time credentials link of a merchant onboarded by e-mail. Following
// it (a POST from the page the link opens: mail scanners that prefetch
// links do not use it up) issues the merchant's transfer API key and its
// first source's credentials, in the same transaction that uses the link, so
// they exist only once and are shown only in that answer. The developer's
// panel account is made at the same time, with a password nobody knows, and
// the answer carries a fresh password-setting link for it.
import { issueKey } from '../../domain/credentials.ts';
import { randomBase62 } from '../../domain/ids.ts';
import { credentialsLinkProblem, revealCredentials as revealCredentialsCommand } from '../../store/onboarding/credentials-link.ts';
import type { LinkProblem } from '../../store/link-tokens.ts';
import { issueSourceKeys, issuingDeps, type SourceCredentials, sourceCredentialsOf } from '../merchants/merchants.ts';
import { generatePassword, hashPassword } from '../panel/passwords.ts';
import type { OnboardingDeps } from './deps.ts';

export interface RevealedCredentials {
  readonly merchant_id: string;
  readonly email: string;
  readonly transfer_api_key: string;
  readonly source: SourceCredentials;
  /** A link token to set the new panel account's password; null when the address already had an account. */
  readonly password_token: string | null;
}

export type RevealOutcome = { readonly ok: true; readonly revealed: RevealedCredentials } | { readonly ok: false; readonly problem: LinkProblem };

/** Whether a credentials link is still good (the page that asks to reveal them says so before anything is used). */
export async function credentialsLinkState(deps: OnboardingDeps, token: string): Promise<LinkProblem | null> {
  return credentialsLinkProblem(deps.db, token, deps.clock.nowMs());
}

export async function revealCredentials(deps: OnboardingDeps, token: string, address: string | null): Promise<RevealOutcome> {
  const issuer = issuingDeps(deps);
  // Hashing is slow on purpose: done before, not inside, the write transaction.
  const passwordHash = await hashPassword(generatePassword());
  const userId = `usr_${randomBase62(16)}`;
  const transferKey = issueKey(issuer.environment, 'transfer_key');
  const sourceKeys = issueSourceKeys(issuer);
  const revealed = await revealCredentialsCommand(deps.db, {
    token,
    nowMs: deps.clock.nowMs(),
    transferKey,
    sourceKeys: sourceKeys.keys,
    user: { id: userId, passwordHash },
    auditOf: (link) => ({
      actor: { kind: 'anonymous', id: null, label: link.email, address },
      event: { action: 'credentials.reveal', target: link.merchantId, merchantId: link.merchantId, detail: `first credentials, source ${link.sourceId}` },
    }),
  });
  if (!revealed.ok) return revealed;
  return {
    ok: true,
    revealed: {
      merchant_id: revealed.merchantId,
      email: revealed.email,
      transfer_api_key: transferKey.key,
      source: sourceCredentialsOf(revealed.sourceId, revealed.dialect, sourceKeys),
      password_token: revealed.passwordToken,
    },
  };
}
