// A merchant's sources and keys after creation: a new source, new
// credentials for a source, revoking a source, a source's wire dialect, a
// new transfer key. Each is an audited command; the keys are issued by the
// caller.
import type { IssuedKey } from '../../domain/credentials.ts';
import type { WireDialect } from '../../domain/wire-dialect.ts';
import { type AuditNote, appendAuditNote } from '../audit-events.ts';
import type { Db } from '../db.ts';
import {
  getMerchant,
  getSource,
  lockActiveSource,
  lockMerchant,
  revokeCredentialsOfSource,
  revokeSource as revokeSourceRow,
  revokeTransferKeys,
  updateSourceDialect,
} from '../merchants.ts';
import { type IssuedSourceKeys, type NewSource, storeSource, storeSourceKeys, storeTransferKey } from './credentials.ts';

export async function createSource(
  db: Db,
  input: { merchantId: string; source: NewSource; nowMs: number; audit: AuditNote },
): Promise<{ readonly kind: 'created' } | { readonly kind: 'not_found' }> {
  return db.write(async (tx) => {
    if ((await getMerchant(tx, input.merchantId)) === undefined) return { kind: 'not_found' } as const;
    await storeSource(tx, input.merchantId, input.source, input.nowMs);
    await appendAuditNote(tx, input.audit, { target: input.source.id });
    return { kind: 'created' } as const;
  });
}

export type SourceRotated = { readonly kind: 'rotated'; readonly dialect: WireDialect } | { readonly kind: 'not_found' } | { readonly kind: 'revoked' };

/**
 * Replaces a source's credentials. The source is checked and claimed by one
 * conditional statement, not read first (operations of one PostgreSQL batch
 * interleave). Should a revocation of the source interleave with this
 * anyway, authentication refuses every credential of a revoked source
 * (store/merchants.ts).
 */
export async function rotateSourceKeys(
  db: Db,
  input: { merchantId: string; sourceId: string; keys: IssuedSourceKeys; nowMs: number; audit: AuditNote },
): Promise<SourceRotated> {
  return db.write(async (tx): Promise<SourceRotated> => {
    if (!(await lockActiveSource(tx, input.merchantId, input.sourceId))) {
      // Only the answer's kind depends on this read; nothing is written after it.
      const source = await getSource(tx, input.sourceId);
      if (source === undefined || source.merchant_id !== input.merchantId) return { kind: 'not_found' };
      return { kind: 'revoked' };
    }
    await revokeCredentialsOfSource(tx, input.sourceId, input.nowMs);
    await storeSourceKeys(tx, input.merchantId, input.sourceId, input.keys, input.nowMs);
    await appendAuditNote(tx, input.audit);
    // The row is locked (claimed above): its dialect is the one the new keys answer in.
    const source = await getSource(tx, input.sourceId);
    return { kind: 'rotated', dialect: source!.dialect };
  });
}

/** Revokes a source of this merchant; false when it has no such source. */
export async function revokeSource(db: Db, input: { merchantId: string; sourceId: string; nowMs: number; audit: AuditNote }): Promise<boolean> {
  return db.write(async (tx) => {
    if (!(await revokeSourceRow(tx, input.merchantId, input.sourceId, input.nowMs))) return false;
    await appendAuditNote(tx, input.audit);
    return true;
  });
}

export type SourceDialectSet =
  | { readonly kind: 'changed' | 'unchanged'; readonly merchantId: string; readonly previous: WireDialect }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'revoked' };

/**
 * Sets the wire dialect of a source: of this merchant's source when
 * `merchantId` is given (the panel), of any merchant's otherwise (the
 * operator). The change is one conditional UPDATE (store/merchants.ts); the
 * read before it only finds the owner and words a refusal. Writing `sources`
 * invalidates the credential cache (security-version.ts), so the next
 * request with the source's key is answered in the new dialect. The event is
 * appended whether or not the dialect changed: the setting was asked for.
 */
export async function setSourceDialect(
  db: Db,
  input: { sourceId: string; merchantId: string | null; dialect: WireDialect; audit: AuditNote },
): Promise<SourceDialectSet> {
  return db.write(async (tx): Promise<SourceDialectSet> => {
    const source = await getSource(tx, input.sourceId);
    if (source === undefined || (input.merchantId !== null && source.merchant_id !== input.merchantId)) return { kind: 'not_found' };
    if (source.revoked_at_ms !== null) return { kind: 'revoked' };
    const changed = await updateSourceDialect(tx, source.merchant_id, source.id, input.dialect);
    // Not changed although it differed: a revocation (or the same change) committed in between.
    if (!changed && source.dialect !== input.dialect && (await getSource(tx, source.id))?.revoked_at_ms !== null) return { kind: 'revoked' };
    const detail = changed ? `dialect ${source.dialect} -> ${input.dialect}` : `dialect ${input.dialect} (unchanged)`;
    await appendAuditNote(tx, input.audit, { target: source.id, merchantId: source.merchant_id, detail });
    return { kind: changed ? 'changed' : 'unchanged', merchantId: source.merchant_id, previous: source.dialect };
  });
}

/** Revokes a merchant's transfer keys and stores a new one; false when there is no such merchant. */
export async function rotateTransferKey(db: Db, input: { merchantId: string; key: IssuedKey; nowMs: number; audit: AuditNote }): Promise<boolean> {
  return db.write(async (tx) => {
    if (!(await lockMerchant(tx, input.merchantId))) return false;
    await revokeTransferKeys(tx, input.merchantId, input.nowMs);
    await storeTransferKey(tx, input.merchantId, input.key, input.nowMs);
    await appendAuditNote(tx, input.audit);
    return true;
  });
}
