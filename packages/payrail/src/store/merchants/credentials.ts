// Writing a merchant's credentials and sources inside a command's
// transaction. Keys and PIN hashes are made by the caller (domain
// credentials with the PIN key, which the store never holds); only their
// hashes and ids are written here.
import type { CredentialKind, IssuedKey } from '../../domain/credentials.ts';
import type { WireDialect } from '../../domain/wire-dialect.ts';
import type { Tx } from '../db.ts';
import { insertCredential, insertSource } from '../merchants.ts';

/** A source's three credentials as issued: its API key with its PIN's hash, and its tokenization token. */
export interface IssuedSourceKeys {
  readonly apiKey: IssuedKey;
  readonly pinHash: string;
  readonly token: IssuedKey;
}

/** A new source: its id, its name, its wire dialect and its credentials. */
export interface NewSource {
  readonly id: string;
  readonly name: string;
  readonly dialect: WireDialect;
  readonly keys: IssuedSourceKeys;
}

/** The owner of a credential and when it is issued; a transfer key has no source. */
interface CredentialOwner {
  readonly merchantId: string;
  readonly sourceId: string | null;
  readonly nowMs: number;
}

async function storeCredential(tx: Tx, owner: CredentialOwner, kind: CredentialKind, key: IssuedKey, pinHash: string | null = null): Promise<void> {
  await insertCredential(tx, {
    id: key.id,
    merchant_id: owner.merchantId,
    source_id: owner.sourceId,
    kind,
    environment: key.environment,
    secret_hash: key.secretHash,
    pin_hash: pinHash,
    created_at_ms: owner.nowMs,
  });
}

export async function storeTransferKey(tx: Tx, merchantId: string, key: IssuedKey, nowMs: number): Promise<void> {
  await storeCredential(tx, { merchantId, sourceId: null, nowMs }, 'transfer_key', key);
}

/** The API key (with its PIN's hash) and tokenization token of an existing source. */
export async function storeSourceKeys(tx: Tx, merchantId: string, sourceId: string, keys: IssuedSourceKeys, nowMs: number): Promise<void> {
  const owner = { merchantId, sourceId, nowMs };
  await storeCredential(tx, owner, 'source_key', keys.apiKey, keys.pinHash);
  await storeCredential(tx, owner, 'tokenization_token', keys.token);
}

export async function storeSource(tx: Tx, merchantId: string, source: NewSource, nowMs: number): Promise<void> {
  await insertSource(tx, { id: source.id, merchant_id: merchantId, name: source.name, dialect: source.dialect, created_at_ms: nowMs });
  await storeSourceKeys(tx, merchantId, source.id, source.keys, nowMs);
}
