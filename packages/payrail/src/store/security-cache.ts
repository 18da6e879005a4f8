// What authentication reads on every request (the credential behind a key,
// whether the client address is locked), kept in memory while the store's
// security version (Db.securityVersion, security-version.ts) stays the same.
// Any committed write to those tables, by this process or another, changes
// the version, so a revocation, rotation, PIN lock or address lock is seen
// by the next request exactly as an uncached read would see it. A merchant's
// surcharge settings, which every card charge reads, are kept the same way.
//
// An entry remembers the version read BEFORE its row was read: a write that
// commits while the read is under way (PostgreSQL) leaves the entry already
// outdated. Entries are also dropped after ENTRY_TTL_MS, which bounds how
// long a missed notification could matter (security-version.ts). Unknown
// keys are not kept: whatever is sent, an unknown key costs a read.
import type { Db, Tx } from './db.ts';
import { addressLockEnd } from './auth-address-failures.ts';
import { getCredential, type CredentialRow } from './merchants.ts';
import type { SurchargeSettings } from '../domain/surcharge.ts';

/** Longest time an entry is used, whatever the version says. */
export const ENTRY_TTL_MS = 1_000;
/** Entries per kind; past it the kind starts again empty (a flood of new keys or addresses cannot grow memory). */
const ENTRIES_MAX = 10_000;

interface Entry<T> {
  readonly version: number;
  readonly readAtMs: number;
  readonly value: T;
}

class Kept<T> {
  private readonly entries = new Map<string, Entry<T>>();

  async get(db: Db, key: string, read: (tx: Tx) => Promise<T | undefined>): Promise<T | undefined> {
    const version = db.securityVersion?.();
    const nowMs = Date.now();
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.version === version && nowMs - entry.readAtMs < ENTRY_TTL_MS) return entry.value;
    const value = await db.read(read);
    if (value === undefined || version === undefined) {
      this.entries.delete(key);
      return value;
    }
    if (this.entries.size >= ENTRIES_MAX) this.entries.clear();
    this.entries.set(key, { version, readAtMs: nowMs, value });
    return value;
  }
}

interface Caches {
  readonly credentials: Kept<CredentialRow>;
  /** The address's lock end as stored (0: no row), compared with the time at each use. */
  readonly addressLocks: Kept<number>;
  /** Per merchant; always defined (a merchant without settings has none of each type). */
  readonly surcharges: Kept<SurchargeSettings>;
}

const cachesOf = new WeakMap<Db, Caches>();

function caches(db: Db): Caches {
  let found = cachesOf.get(db);
  if (found === undefined) {
    found = { credentials: new Kept(), addressLocks: new Kept(), surcharges: new Kept() };
    cachesOf.set(db, found);
  }
  return found;
}

/** The credential with this id as committed (undefined: no such credential). */
export function credentialOf(db: Db, id: string): Promise<CredentialRow | undefined> {
  return caches(db).credentials.get(db, id, (tx) => getCredential(tx, id));
}

/** When the address's lock ends, if it is locked at `nowMs`; 0 otherwise. */
export async function addressLockedUntilCached(db: Db, address: string, nowMs: number): Promise<number> {
  const endMs = (await caches(db).addressLocks.get(db, address, (tx) => addressLockEnd(tx, address))) ?? 0;
  return endMs > nowMs ? endMs : 0;
}

/** A merchant's surcharge settings as committed, read by `read` when not kept (store/merchants/surcharges.ts). */
export async function surchargeSettingsCached(db: Db, merchantId: string, read: (tx: Tx) => Promise<SurchargeSettings>): Promise<SurchargeSettings> {
  const settings = await caches(db).surcharges.get(db, merchantId, read);
  if (settings === undefined) throw new Error('surcharge settings read as undefined');
  return settings;
}
