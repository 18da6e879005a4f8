// Merchants, sources and credentials rows.
import type { CredentialKind, Environment } from '../domain/credentials.ts';
import { DEFAULT_WIRE_DIALECT, type WireDialect } from '../domain/wire-dialect.ts';
import type { Tx } from './db.ts';

export interface MerchantRow {
  id: string;
  name: string;
  payouts_must_link: number;
  created_at_ms: number;
}

export interface SourceRow {
  id: string;
  merchant_id: string;
  name: string;
  dialect: WireDialect;
  created_at_ms: number;
  revoked_at_ms: number | null;
}

export interface CredentialRow {
  id: string;
  merchant_id: string;
  source_id: string | null;
  kind: CredentialKind;
  /** The wire dialect of the credential's source ('spec' for a transfer key). */
  dialect: WireDialect;
  /** NULL only on rows issued before migration 003 and not yet given the store's environment. */
  environment: Environment | null;
  secret_hash: string;
  pin_hash: string | null;
  revoked_at_ms: number | null;
  /** Wrong PINs in a row (0 when none) and until when the key is locked (0 when it is not). */
  pin_failures: number;
  pin_locked_until_ms: number;
}

export async function insertMerchant(tx: Tx, row: MerchantRow): Promise<void> {
  await tx.run('INSERT INTO merchants (id, name, payouts_must_link, created_at_ms) VALUES (?, ?, ?, ?)', [
    row.id,
    row.name,
    row.payouts_must_link,
    row.created_at_ms,
  ]);
}

export async function getMerchant(tx: Tx, id: string): Promise<MerchantRow | undefined> {
  return tx.get<MerchantRow>('SELECT id, name, payouts_must_link, created_at_ms FROM merchants WHERE id = ?', [id]);
}

export async function setPayoutsMustLink(tx: Tx, id: string, on: boolean): Promise<number> {
  return (await tx.run('UPDATE merchants SET payouts_must_link = ? WHERE id = ?', [on ? 1 : 0, id])).changes;
}

/** The merchant's setting (migration 036): approved charges keep their card for later `ref-` charges for the whole retention (domain/reference-card-retention.ts). */
export async function keepsReferenceCards(tx: Tx, id: string): Promise<boolean> {
  const row = await tx.get<{ keeps_reference_cards: number }>('SELECT keeps_reference_cards FROM merchants WHERE id = ?', [id]);
  return row !== undefined && Number(row.keeps_reference_cards) === 1;
}

export async function setKeepsReferenceCards(tx: Tx, id: string, on: boolean): Promise<number> {
  return (await tx.run('UPDATE merchants SET keeps_reference_cards = ? WHERE id = ?', [on ? 1 : 0, id])).changes;
}

export async function insertSource(tx: Tx, row: Omit<SourceRow, 'revoked_at_ms' | 'dialect'> & { dialect?: WireDialect }): Promise<void> {
  await tx.run('INSERT INTO sources (id, merchant_id, name, dialect, created_at_ms) VALUES (?, ?, ?, ?, ?)', [
    row.id,
    row.merchant_id,
    row.name,
    row.dialect ?? DEFAULT_WIRE_DIALECT,
    row.created_at_ms,
  ]);
}

export async function getSource(tx: Tx, id: string): Promise<SourceRow | undefined> {
  return tx.get<SourceRow>('SELECT id, merchant_id, name, dialect, created_at_ms, revoked_at_ms FROM sources WHERE id = ?', [id]);
}

export async function listSources(tx: Tx, merchantId: string): Promise<SourceRow[]> {
  return tx.all<SourceRow>(
    'SELECT id, merchant_id, name, dialect, created_at_ms, revoked_at_ms FROM sources WHERE merchant_id = ? ORDER BY created_at_ms, id',
    [merchantId],
  );
}

/**
 * Revokes a source of this merchant (keeping the first revocation time) and
 * its credentials. Returns false, having changed nothing, when the merchant
 * has no such source. The ownership check is part of the UPDATE.
 */
export async function revokeSource(tx: Tx, merchantId: string, id: string, nowMs: number): Promise<boolean> {
  const revoked = await tx.run('UPDATE sources SET revoked_at_ms = COALESCE(revoked_at_ms, ?) WHERE id = ? AND merchant_id = ?', [nowMs, id, merchantId]);
  if (revoked.changes !== 1) return false;
  await revokeCredentialsOfSource(tx, id, nowMs);
  return true;
}

/**
 * Sets the wire dialect of an active source of this merchant, in one
 * conditional statement (ownership, activity and "not already so" are part
 * of the UPDATE). Returns whether a row changed.
 */
export async function updateSourceDialect(tx: Tx, merchantId: string, id: string, dialect: WireDialect): Promise<boolean> {
  const changed = await tx.run('UPDATE sources SET dialect = ? WHERE id = ? AND merchant_id = ? AND revoked_at_ms IS NULL AND dialect <> ?', [
    dialect,
    id,
    merchantId,
    dialect,
  ]);
  return changed.changes === 1;
}

/**
 * Claims an active source of this merchant for a change of its credentials:
 * one conditional statement, which also locks the row until commit, so a
 * revocation in another transaction waits and then revokes the new
 * credentials too. Returns false when there is no such active source.
 */
export async function lockActiveSource(tx: Tx, merchantId: string, id: string): Promise<boolean> {
  const locked = await tx.run('UPDATE sources SET name = name WHERE id = ? AND merchant_id = ? AND revoked_at_ms IS NULL', [id, merchantId]);
  return locked.changes === 1;
}

/** Locks the merchant's row until commit, so changes of its transfer key in other transactions run one after the other. */
export async function lockMerchant(tx: Tx, merchantId: string): Promise<boolean> {
  return (await tx.run('UPDATE merchants SET name = name WHERE id = ?', [merchantId])).changes === 1;
}

export async function insertCredential(
  tx: Tx,
  row: {
    id: string;
    merchant_id: string;
    source_id: string | null;
    kind: CredentialKind;
    environment: Environment;
    secret_hash: string;
    pin_hash: string | null;
    created_at_ms: number;
  },
): Promise<void> {
  await tx.run(
    'INSERT INTO credentials (id, merchant_id, source_id, kind, environment, secret_hash, pin_hash, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    [row.id, row.merchant_id, row.source_id, row.kind, row.environment, row.secret_hash, row.pin_hash, row.created_at_ms],
  );
}

/**
 * The row behind a presented key; revoked rows are returned too so callers
 * can tell why. A credential counts as revoked when its source is, even if
 * its own row was not (a rotation interleaved with the source's revocation
 * can leave it so), and that is decided here in the same single query,
 * which also brings the key's wrong-PIN count and lock.
 */
export async function getCredential(tx: Tx, id: string): Promise<CredentialRow | undefined> {
  const row = await tx.get<CredentialRow>(
    `SELECT c.id, c.merchant_id, c.source_id, c.kind, COALESCE(s.dialect, 'spec') AS dialect, c.environment, c.secret_hash, c.pin_hash, COALESCE(c.revoked_at_ms, s.revoked_at_ms) AS revoked_at_ms,
       COALESCE(p.failures, 0) AS pin_failures, COALESCE(p.locked_until_ms, 0) AS pin_locked_until_ms
     FROM credentials c LEFT JOIN sources s ON s.id = c.source_id LEFT JOIN pin_failures p ON p.credential_id = c.id
     WHERE c.id = ?`,
    [id],
  );
  return row === undefined ? undefined : { ...row, pin_failures: Number(row.pin_failures), pin_locked_until_ms: Number(row.pin_locked_until_ms) };
}

/**
 * Replaces hashes of the older forms with the current ones after a right
 * key (and PIN) was presented. Only if the row still holds what was checked,
 * so a rotation or revocation in between is never undone.
 */
export async function upgradeCredentialHashes(
  tx: Tx,
  id: string,
  change: { fromSecretHash: string; toSecretHash: string; fromPinHash: string | null; toPinHash: string | null },
): Promise<void> {
  await tx.run('UPDATE credentials SET secret_hash = ?, pin_hash = ? WHERE id = ? AND secret_hash = ? AND pin_hash IS NOT DISTINCT FROM ?', [
    change.toSecretHash,
    change.toPinHash,
    id,
    change.fromSecretHash,
    change.fromPinHash,
  ]);
}

/** Gives credentials issued before migration 003 the store's environment; returns how many. */
export async function stampCredentialEnvironment(tx: Tx, environment: Environment): Promise<number> {
  return (await tx.run('UPDATE credentials SET environment = ? WHERE environment IS NULL', [environment])).changes;
}

export interface LockedSourceKey {
  credential_id: string;
  source_id: string;
  failures: number;
  locked_until_ms: number;
}

/** This merchant's active source keys locked by wrong PINs at `nowMs`. */
export async function listLockedSourceKeys(tx: Tx, merchantId: string, nowMs: number, limit: number): Promise<LockedSourceKey[]> {
  const rows = await tx.all<LockedSourceKey>(
    `SELECT c.id AS credential_id, c.source_id, p.failures, p.locked_until_ms
     FROM pin_failures p JOIN credentials c ON c.id = p.credential_id
     WHERE c.merchant_id = ? AND c.revoked_at_ms IS NULL AND p.locked_until_ms > ?
     ORDER BY p.locked_until_ms DESC, c.id LIMIT ?`,
    [merchantId, nowMs, limit],
  );
  return rows.map((row) => ({ ...row, failures: Number(row.failures), locked_until_ms: Number(row.locked_until_ms) }));
}

export async function revokeCredentialsOfSource(tx: Tx, sourceId: string, nowMs: number): Promise<void> {
  await tx.run('UPDATE credentials SET revoked_at_ms = ? WHERE source_id = ? AND revoked_at_ms IS NULL', [nowMs, sourceId]);
}

export async function revokeTransferKeys(tx: Tx, merchantId: string, nowMs: number): Promise<void> {
  await tx.run("UPDATE credentials SET revoked_at_ms = ? WHERE merchant_id = ? AND kind = 'transfer_key' AND revoked_at_ms IS NULL", [nowMs, merchantId]);
}

/** Whether the store holds any merchant yet (first-run seeding). */
export async function anyMerchantExists(tx: Tx): Promise<boolean> {
  return (await tx.get('SELECT id FROM merchants LIMIT 1')) !== undefined;
}
