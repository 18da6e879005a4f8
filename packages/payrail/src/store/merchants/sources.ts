// A merchant's sources and keys after creation: a new source, new
// credentials for a source, revoking a source, a new transfer key. Each is
// an audited command; the keys are issued by the caller.
import type { IssuedKey } from '../../domain/credentials.ts';
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

export type SourceRotated = { readonly kind: 'rotated' } | { readonly kind: 'not_found' } | { readonly kind: 'revoked' };

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
    return { kind: 'rotated' };
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
