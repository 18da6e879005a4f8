// Idempotency keys handed to providers (behaviour.md section 18). A key is
// unique per installation: it is derived from the installation id recorded in
// the store when the store was created, the kind of record and the record's
// primary key. A reset sandbox or a second deployment on the same provider
// account therefore never replays another installation's keys, and a provider
// never answers one payment with another's result. A restored copy keeps the
// original's id until it is given a new one (store/installation.ts).
//
// Records made before installation ids existed keep the key they were first
// sent under (the bare number; `transfer-<pk>` for a payout): one of them may
// be in flight at the upgrade, and a new key for it could be paid twice.
//
// Two forms, because providers differ:
// - providerKey: at most 20 characters of [0-9a-z] (Authorize.net's
//   invoiceNumber and refId allow 20), read back by parseProviderKey;
// - providerUuid: a UUID (MTN MoMo's X-Reference-Id, pawaPay's payoutId):
//   80 bits that hash the installation and the kind, then the primary key in
//   the last 48 bits, read back by parseProviderUuid (a callback that names
//   only the UUID finds its record without an index). Laid out as version 4,
//   the form those providers document for references.
import crypto from 'node:crypto';

/** What a key names. Charges, refunds and credits share the charges table and its primary keys. */
export type ProviderKeyKind = 'charge' | 'verification' | 'transfer' | 'receiver';

const KIND_LETTER: Readonly<Record<ProviderKeyKind, string>> = { charge: 'c', verification: 'v', transfer: 't', receiver: 'r' };
const LETTER_KIND: Readonly<Record<string, ProviderKeyKind>> = { c: 'charge', v: 'verification', t: 'transfer', r: 'receiver' };
const KINDS = Object.keys(KIND_LETTER) as ProviderKeyKind[];

/** Characters of the installation prefix: 8 base-36 characters, 41 bits. */
export const INSTALLATION_PREFIX_CHARS = 8;

/** The longest key providerKey makes: the prefix, the kind letter and 2^53 in base 36 (11 characters). */
export const PROVIDER_KEY_MAX_CHARS = 20;

/** An installation id as the store keeps it: 32 lowercase hex digits (128 random bits). */
export const INSTALLATION_ID_PATTERN = /^[0-9a-f]{32}$/;

/** A new installation id: 128 random bits as 32 hex digits. */
export function newInstallationId(): string {
  return crypto.randomBytes(16).toString('hex');
}

/** The 8-character prefix every key of the installation starts with. */
export function installationPrefix(installationId: string): string {
  if (!INSTALLATION_ID_PATTERN.test(installationId)) throw new Error('installation id must be 32 lowercase hex digits');
  return Number.parseInt(installationId.slice(0, 11), 16).toString(36).slice(-INSTALLATION_PREFIX_CHARS).padStart(INSTALLATION_PREFIX_CHARS, '0');
}

/** `${prefix}${kind letter}${pk in base 36}`: at most 20 characters. */
export function providerKey(installationId: string, kind: ProviderKeyKind, pk: number): string {
  if (!Number.isSafeInteger(pk) || pk < 1) throw new Error(`provider key of a record with primary key ${pk}`);
  return `${installationPrefix(installationId)}${KIND_LETTER[kind]}${pk.toString(36)}`;
}

/** The record a key of this installation names, or null for any other text (another installation's key included). */
export function parseProviderKey(installationId: string, key: string): { kind: ProviderKeyKind; pk: number } | null {
  const prefix = installationPrefix(installationId);
  if (key.length > PROVIDER_KEY_MAX_CHARS || !key.startsWith(prefix)) return null;
  const kind = LETTER_KIND[key.charAt(prefix.length)];
  const digits = key.slice(prefix.length + 1);
  if (kind === undefined || !/^[0-9a-z]{1,11}$/.test(digits)) return null;
  const pk = Number.parseInt(digits, 36);
  return Number.isSafeInteger(pk) && pk >= 1 && pk.toString(36) === digits ? { kind, pk } : null;
}

/** The largest primary key a UUID carries (its last 48 bits). */
const UUID_PK_MAX = 2 ** 48 - 1;

/** The 80 bits before the primary key, as 20 hex digits with the version and variant in place. */
function uuidTag(installationId: string, kind: ProviderKeyKind): string {
  const h = crypto.createHash('sha256').update(`payrail-provider-uuid\n${installationId}\n${kind}`).digest('hex');
  const variant = ((Number.parseInt(h.charAt(15), 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 12)}4${h.slice(12, 15)}${variant}${h.slice(16, 19)}`;
}

/** A UUID (version-4 layout) naming the record: the same inputs give the same UUID, and parseProviderUuid reads it back. */
export function providerUuid(installationId: string, kind: ProviderKeyKind, pk: number): string {
  if (!Number.isSafeInteger(pk) || pk < 1 || pk > UUID_PK_MAX) throw new Error(`provider UUID of a record with primary key ${pk}`);
  const hex = uuidTag(installationId, kind) + pk.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The record a UUID of this installation names, or null for any other text (any case of hex digits is read). */
export function parseProviderUuid(installationId: string, uuid: string): { kind: ProviderKeyKind; pk: number } | null {
  if (!/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(uuid)) return null;
  const hex = uuid.toLowerCase().replaceAll('-', '');
  const kind = KINDS.find((k) => uuidTag(installationId, k) === hex.slice(0, 20));
  const pk = Number.parseInt(hex.slice(20), 16);
  return kind === undefined || pk < 1 ? null : { kind, pk };
}

/** What the store records of its installation (store/installation.ts). */
export interface Installation {
  readonly id: string;
  /** Per kind, the highest primary key made before provider keys existed (0: none); those records keep their first key. */
  readonly legacyPkMax: Readonly<Record<ProviderKeyKind, number>>;
}

/** The key a record made before installation ids existed was first sent under. */
function legacyKey(kind: ProviderKeyKind, pk: number): string {
  return kind === 'transfer' ? `transfer-${pk}` : String(pk);
}

/** The keys of one installation, as the flows use them. */
export interface ProviderKeys {
  readonly installationId: string;
  key(kind: ProviderKeyKind, pk: number): string;
  uuid(kind: ProviderKeyKind, pk: number): string;
  parse(key: string): { kind: ProviderKeyKind; pk: number } | null;
  parseUuid(uuid: string): { kind: ProviderKeyKind; pk: number } | null;
}

/** `legacyPkMax` absent: a store with no records older than its installation id. */
export function providerKeysOf(installationId: string, legacyPkMax?: Installation['legacyPkMax']): ProviderKeys {
  const prefix = installationPrefix(installationId);
  return {
    installationId,
    key: (kind, pk) => (legacyPkMax !== undefined && pk <= legacyPkMax[kind] ? legacyKey(kind, pk) : providerKey(installationId, kind, pk)),
    uuid: (kind, pk) => providerUuid(installationId, kind, pk),
    parse: (key) => (key.startsWith(prefix) ? parseProviderKey(installationId, key) : null),
    parseUuid: (uuid) => parseProviderUuid(installationId, uuid),
  };
}
