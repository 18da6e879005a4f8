// The page origins a payin source's hosted card form may be shown on: the
// lists the panel, the CLI and the form's route read, and the audited
// commands that add and remove one.
import { type AuditNote, appendAuditNote } from '../audit-events.ts';
import type { Db } from '../db.ts';
import { getSource } from '../merchants.ts';
import { addSourceOrigin, listOriginsOfMerchant, listSourceOrigins, removeSourceOrigin } from '../source-origins.ts';

/** A source's origins; undefined when this merchant has no such source. */
export async function originsOfSource(db: Db, input: { merchantId: string; sourceId: string; limit: number }): Promise<string[] | undefined> {
  return db.read(async (tx) => {
    const source = await getSource(tx, input.sourceId);
    if (source === undefined || source.merchant_id !== input.merchantId) return undefined;
    return listSourceOrigins(tx, input.merchantId, input.sourceId, input.limit);
  });
}

/** The origins a source allows, without looking at the source itself (the form's route has authenticated its token). */
export async function allowedOrigins(db: Db, merchantId: string, sourceId: string, limit: number): Promise<string[]> {
  return db.read((tx) => listSourceOrigins(tx, merchantId, sourceId, limit));
}

export async function originsOfMerchant(db: Db, merchantId: string, limit: number): Promise<Array<{ source_id: string; origin: string }>> {
  return db.read((tx) => listOriginsOfMerchant(tx, merchantId, limit));
}

export type OriginAdded =
  | { readonly kind: 'listed'; readonly origins: string[] }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'revoked' }
  /** The source already lists as many origins as it may. */
  | { readonly kind: 'full' };

/** Adds an origin to an active source while it lists fewer than `originsMax` (one conditional statement); already listed is no refusal. */
export async function addOrigin(
  db: Db,
  input: { merchantId: string; sourceId: string; origin: string; nowMs: number; originsMax: number; audit: AuditNote },
): Promise<OriginAdded> {
  return db.write(async (tx): Promise<OriginAdded> => {
    if (!(await addSourceOrigin(tx, input))) {
      // Only the answer's kind depends on these reads; nothing is written after them.
      const source = await getSource(tx, input.sourceId);
      if (source === undefined || source.merchant_id !== input.merchantId) return { kind: 'not_found' };
      if (source.revoked_at_ms !== null) return { kind: 'revoked' };
      const listed = await listSourceOrigins(tx, input.merchantId, input.sourceId, input.originsMax);
      if (!listed.includes(input.origin)) return { kind: 'full' };
    }
    const origins = await listSourceOrigins(tx, input.merchantId, input.sourceId, input.originsMax);
    await appendAuditNote(tx, input.audit);
    return { kind: 'listed', origins };
  });
}

/** Removes an origin from a source of this merchant; undefined when the source did not list it. */
export async function removeOrigin(
  db: Db,
  input: { merchantId: string; sourceId: string; origin: string; originsMax: number; audit: AuditNote },
): Promise<string[] | undefined> {
  return db.write(async (tx) => {
    if (!(await removeSourceOrigin(tx, input.merchantId, input.sourceId, input.origin))) return undefined;
    const origins = await listSourceOrigins(tx, input.merchantId, input.sourceId, input.originsMax);
    await appendAuditNote(tx, input.audit);
    return origins;
  });
}
