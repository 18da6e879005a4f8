// The one-time credentials link of a merchant onboarded by e-mail. Following
// it (a POST from the page the link opens: mail scanners that prefetch
// links do not use it up) issues the merchant's transfer API key and its
// first source's credentials, in the same transaction that uses the link, so
// they exist only once and are shown only in that answer. The developer's
// panel account is made at the same time, with a password nobody knows, and
// the answer carries a fresh password-setting link for it.
import type { Txn } from '../../store/db.ts';
import { listSources } from '../../store/merchants.ts';
import { getUserByEmail, insertUser } from '../../store/panel-users.ts';
import { auditInTx } from '../operations/audit.ts';
import { checkLink, issueLink, type LinkProblem, useLink } from '../../store/link-tokens.ts';
import { issueStarterCredentials, issuingDeps, type SourceCredentials } from '../merchants/merchants.ts';
import { generatePassword, hashPassword } from '../panel/passwords.ts';
import { randomBase62 } from '../../domain/ids.ts';
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
  const check = await deps.db.read((tx) => checkLink(tx, token, 'credentials', deps.clock.nowMs()));
  return check.ok ? null : check.problem;
}

async function bareSourceOf(tx: Txn, merchantId: string): Promise<string> {
  const source = (await listSources(tx, merchantId)).find((s) => s.revoked_at_ms === null);
  if (source === undefined) throw new Error(`merchant ${merchantId} has no source for its credentials link`);
  return source.id;
}

export async function revealCredentials(deps: OnboardingDeps, token: string, address: string | null): Promise<RevealOutcome> {
  const issuer = issuingDeps(deps);
  // Hashing is slow on purpose: done before, not inside, the write transaction.
  const passwordHash = await hashPassword(generatePassword());
  const userId = `usr_${randomBase62(16)}`;
  return deps.db.write(async (tx): Promise<RevealOutcome> => {
    const nowMs = deps.clock.nowMs();
    const used = await useLink(tx, token, 'credentials', nowMs);
    if (!used.ok) return used;
    const merchantId = used.link.subject;
    const email = used.link.email;
    const issued = await issueStarterCredentials(tx, issuer, merchantId, await bareSourceOf(tx, merchantId), nowMs);
    let passwordToken: string | null = null;
    if ((await getUserByEmail(tx, email)) === undefined) {
      await insertUser(tx, {
        id: userId,
        email,
        role: 'merchant',
        merchant_id: merchantId,
        merchant_role: 'admin',
        password_hash: passwordHash,
        created_at_ms: nowMs,
      });
      passwordToken = await issueLink(tx, { purpose: 'password_reset', subject: userId, email }, nowMs);
    }
    const actor = { kind: 'anonymous', id: null, label: email, address } as const;
    await auditInTx(
      tx,
      actor,
      { action: 'credentials.reveal', target: merchantId, merchantId, detail: `first credentials, source ${issued.source.id}` },
      'success',
      nowMs,
    );
    return {
      ok: true,
      revealed: { merchant_id: merchantId, email, transfer_api_key: issued.transfer_api_key, source: issued.source, password_token: passwordToken },
    };
  });
}
