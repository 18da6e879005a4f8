// Merchants, sources and credentials rows.
import type { CredentialKind } from '../domain/credentials.ts';
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
  created_at_ms: number;
  revoked_at_ms: number | null;
}

export interface CredentialRow {
  id: string;
  merchant_id: string;
  source_id: string | null;
  kind: CredentialKind;
  secret_hash: string;
  pin_hash: string | null;
  revoked_at_ms: number | null;
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

export async function listMerchants(tx: Tx, limit: number): Promise<MerchantRow[]> {
  return tx.all<MerchantRow>('SELECT id, name, payouts_must_link, created_at_ms FROM merchants ORDER BY created_at_ms, id LIMIT ?', [limit]);
}

export async function setPayoutsMustLink(tx: Tx, id: string, on: boolean): Promise<number> {
  return (await tx.run('UPDATE merchants SET payouts_must_link = ? WHERE id = ?', [on ? 1 : 0, id])).changes;
}

export async function insertSource(tx: Tx, row: Omit<SourceRow, 'revoked_at_ms'>): Promise<void> {
  await tx.run('INSERT INTO sources (id, merchant_id, name, created_at_ms) VALUES (?, ?, ?, ?)', [row.id, row.merchant_id, row.name, row.created_at_ms]);
}

export async function getSource(tx: Tx, id: string): Promise<SourceRow | undefined> {
  return tx.get<SourceRow>('SELECT id, merchant_id, name, created_at_ms, revoked_at_ms FROM sources WHERE id = ?', [id]);
}

export async function listSources(tx: Tx, merchantId: string): Promise<SourceRow[]> {
  return tx.all<SourceRow>('SELECT id, merchant_id, name, created_at_ms, revoked_at_ms FROM sources WHERE merchant_id = ? ORDER BY created_at_ms, id', [merchantId]);
}

export async function revokeSource(tx: Tx, id: string, nowMs: number): Promise<void> {
  await tx.run('UPDATE sources SET revoked_at_ms = ? WHERE id = ? AND revoked_at_ms IS NULL', [nowMs, id]);
  await revokeCredentialsOfSource(tx, id, nowMs);
}

export async function insertCredential(
  tx: Tx,
  row: { id: string; merchant_id: string; source_id: string | null; kind: CredentialKind; secret_hash: string; pin_hash: string | null; created_at_ms: number },
): Promise<void> {
  await tx.run(
    'INSERT INTO credentials (id, merchant_id, source_id, kind, secret_hash, pin_hash, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)',
    [row.id, row.merchant_id, row.source_id, row.kind, row.secret_hash, row.pin_hash, row.created_at_ms],
  );
}

/** The row behind a presented key; revoked rows are returned too so callers can tell why. */
export async function getCredential(tx: Tx, id: string): Promise<CredentialRow | undefined> {
  return tx.get<CredentialRow>(
    'SELECT id, merchant_id, source_id, kind, secret_hash, pin_hash, revoked_at_ms FROM credentials WHERE id = ?',
    [id],
  );
}

export async function revokeCredentialsOfSource(tx: Tx, sourceId: string, nowMs: number): Promise<void> {
  await tx.run('UPDATE credentials SET revoked_at_ms = ? WHERE source_id = ? AND revoked_at_ms IS NULL', [nowMs, sourceId]);
}

export async function revokeTransferKeys(tx: Tx, merchantId: string, nowMs: number): Promise<void> {
  await tx.run("UPDATE credentials SET revoked_at_ms = ? WHERE merchant_id = ? AND kind = 'transfer_key' AND revoked_at_ms IS NULL", [nowMs, merchantId]);
}
