// The one-time credentials link of a merchant onboarded by e-mail, as the
// store keeps it: using the link stores the merchant's transfer key and its
// bare source's credentials (issued by the caller) in the same transaction,
// so they exist only once, and makes the developer's panel account when the
// address has none, with a fresh password-setting link.
import type { AuditActor, AuditEvent } from '../../domain/audit.ts';
import type { IssuedKey } from '../../domain/credentials.ts';
import { appendAudit } from '../audit-events.ts';
import type { Db, Tx } from '../db.ts';
import { checkLink, issueLink, type LinkProblem, useLink } from '../link-tokens.ts';
import { listSources, type SourceRow } from '../merchants.ts';
import type { WireDialect } from '../../domain/wire-dialect.ts';
import { type IssuedSourceKeys, storeSourceKeys, storeTransferKey } from '../merchants/credentials.ts';
import { getUserByEmail, insertUser } from '../panel-users.ts';

/** Whether a credentials link is still good; null when it is. */
export async function credentialsLinkProblem(db: Db, token: string, nowMs: number): Promise<LinkProblem | null> {
  const check = await db.read((tx) => checkLink(tx, token, 'credentials', nowMs));
  return check.ok ? null : check.problem;
}

async function bareSourceOf(tx: Tx, merchantId: string): Promise<SourceRow> {
  const source = (await listSources(tx, merchantId)).find((s) => s.revoked_at_ms === null);
  if (source === undefined) throw new Error(`merchant ${merchantId} has no source for its credentials link`);
  return source;
}

export interface CredentialsReveal {
  readonly token: string;
  readonly nowMs: number;
  readonly transferKey: IssuedKey;
  readonly sourceKeys: IssuedSourceKeys;
  /** The panel account made when the address has none (its password hash is of a password nobody knows). */
  readonly user: { readonly id: string; readonly passwordHash: string };
  /** The audit event of the reveal, given the link's address and the source that got the credentials. */
  readonly auditOf: (link: { merchantId: string; email: string; sourceId: string }) => { actor: AuditActor; event: AuditEvent };
}

export type Revealed =
  | {
      readonly ok: true;
      readonly merchantId: string;
      readonly email: string;
      readonly sourceId: string;
      readonly dialect: WireDialect;
      readonly passwordToken: string | null;
    }
  | { readonly ok: false; readonly problem: LinkProblem };

export async function revealCredentials(db: Db, input: CredentialsReveal): Promise<Revealed> {
  const nowMs = input.nowMs;
  return db.write(async (tx): Promise<Revealed> => {
    const used = await useLink(tx, input.token, 'credentials', nowMs);
    if (!used.ok) return used;
    const merchantId = used.link.subject;
    const email = used.link.email;
    const { id: sourceId, dialect } = await bareSourceOf(tx, merchantId);
    await storeTransferKey(tx, merchantId, input.transferKey, nowMs);
    await storeSourceKeys(tx, merchantId, sourceId, input.sourceKeys, nowMs);
    let passwordToken: string | null = null;
    if ((await getUserByEmail(tx, email)) === undefined) {
      await insertUser(tx, {
        id: input.user.id,
        email,
        role: 'merchant',
        merchant_id: merchantId,
        merchant_role: 'admin',
        password_hash: input.user.passwordHash,
        created_at_ms: nowMs,
      });
      passwordToken = await issueLink(tx, { purpose: 'password_reset', subject: input.user.id, email }, nowMs);
    }
    const { actor, event } = input.auditOf({ merchantId, email, sourceId });
    await appendAudit(tx, actor, event, 'success', nowMs);
    return { ok: true, merchantId, email, sourceId, dialect, passwordToken };
  });
}
