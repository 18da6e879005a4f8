// The card-data keys this process holds: every key still in use, by id, and
// which one seals new data. Key 1 is the key Payrail always had (the
// configured PAYRAIL_CARD_KEY, or the sandbox's key file); what it sealed
// keeps its original formats (no key id in them) and opens as before, so an
// upgrade re-seals nothing. `payrail keys rotate` adds key 2, 3, ...: random
// data keys stored in the database only wrapped by the key provider
// (flows/card-keys), unwrapped once per process and kept here as KeyObjects
// (src/crypto/subkeys.ts says why).
//
// A new key seals nothing until its activation time (set by rotate, a little
// longer than processes take to refresh their ring), so every running
// process has loaded a key before any data is sealed under it. Should a
// process still meet an id it does not hold (its refreshes failed), it asks
// for a reload and the operation fails once, retryably.
import crypto, { type KeyObject } from 'node:crypto';
import type { PinKeys } from '../domain/credentials.ts';
import { ApiError } from '../errors.ts';
import { deriveSubkeyObject } from './subkeys.ts';

/** The id of the key that sealed everything before key ids existed. */
export const LEGACY_KEY_ID = 1;
/** Largest key id; ids are 4 bytes in sealed headers. */
export const KEY_ID_MAX = 0xffff_ffff;

export class DataKey {
  readonly id: number;
  /** Raw key: derives nonce keys, per nonce. */
  readonly master: Buffer;
  /** Seals long-lived card data. */
  readonly key: KeyObject;
  /** When it starts sealing new data (ms since the epoch); earlier it only opens. */
  readonly activeFromMs: number;
  #pinKey: KeyObject | null = null;
  #fingerprintKey: KeyObject | null = null;
  #webhookKey: KeyObject | null = null;

  constructor(id: number, master: Buffer, activeFromMs: number) {
    if (!Number.isInteger(id) || id < 1 || id > KEY_ID_MAX) throw new Error(`card-data key id ${id} is out of range`);
    this.id = id;
    this.master = Buffer.from(master);
    this.key = crypto.createSecretKey(master);
    this.activeFromMs = activeFromMs;
  }

  get pinKey(): KeyObject {
    this.#pinKey ??= deriveSubkeyObject(this.master, 'pinHash');
    return this.#pinKey;
  }

  get fingerprintKey(): KeyObject {
    this.#fingerprintKey ??= deriveSubkeyObject(this.master, 'cardFingerprint');
    return this.#fingerprintKey;
  }

  get webhookKey(): KeyObject {
    this.#webhookKey ??= deriveSubkeyObject(this.master, 'webhookSecret');
    return this.#webhookKey;
  }

  toJSON(): string {
    return `DataKey ${this.id}`;
  }
}

/** Data sealed under a key id this process does not hold (yet, or any more). */
export class UnknownCardKeyError extends ApiError {
  constructor(readonly keyId: number) {
    // An API error, so a request that meets it answers a retryable 503 in its API's envelope.
    super('card_key_loading', `card data is sealed under card-data key ${keyId}, which this process does not hold (retired, or not loaded yet: retry)`);
  }
}

/** How long a process goes without looking for new or retired keys. */
export const RING_REFRESH_MS = 15_000;

export class KeyRing implements PinKeys {
  #keys = new Map<number, DataKey>();
  /** Ids of retired keys: what they made is refused, where an unknown id means "not loaded yet". */
  #retired = new Set<number>();
  #loadedAtMs: number;
  readonly #nowMs: () => number;
  /** Asks the loader for a fresh ring (asynchronously, once at a time); null for a fixed ring. */
  #reload: (() => void) | null = null;

  constructor(keys: readonly DataKey[], nowMs: () => number = Date.now, retiredIds: readonly number[] = []) {
    this.#nowMs = nowMs;
    this.#loadedAtMs = nowMs();
    this.replace(keys, retiredIds);
  }

  /**
   * Installs what the loader read. Empty only when the keys could not be
   * loaded (the key provider unreachable at start): every use then answers
   * a retryable 503 and asks for a reload, rather than seal under a key the
   * store may no longer use.
   */
  replace(keys: readonly DataKey[], retiredIds: readonly number[] = []): void {
    this.#keys = new Map(keys.map((key) => [key.id, key]));
    this.#retired = new Set(retiredIds);
    this.#loadedAtMs = this.#nowMs();
  }

  /** After a failed reload: the next try waits a refresh interval, instead of following every call. */
  deferRefresh(): void {
    this.#loadedAtMs = this.#nowMs();
  }

  setReload(reload: () => void): void {
    this.#reload = reload;
  }

  get loadedAtMs(): number {
    return this.#loadedAtMs;
  }

  /** The key new data is sealed under: the newest one already active. */
  sealing(): DataKey {
    this.#reloadIfStale();
    const nowMs = this.#nowMs();
    let best: DataKey | null = null;
    for (const key of this.#keys.values()) {
      if (key.activeFromMs <= nowMs && (best === null || key.id > best.id)) best = key;
    }
    if (best !== null) return best;
    if (this.#keys.size === 0) {
      this.#reload?.();
      throw new ApiError('card_key_loading', 'the card-data keys are not loaded yet (is the key provider reachable?); retry');
    }
    // All keys still waiting for their activation: the oldest one seals.
    return [...this.#keys.values()].reduce((a, b) => (a.id < b.id ? a : b));
  }

  /** The key of an id met in stored data; throws UnknownCardKeyError (and asks for a reload) when not held. */
  key(id: number): DataKey {
    const key = this.#keys.get(id);
    if (key !== undefined) return key;
    this.#reload?.();
    throw new UnknownCardKeyError(id);
  }

  has(id: number): boolean {
    return this.#keys.has(id);
  }

  ids(): number[] {
    return [...this.#keys.keys()].sort((a, b) => a - b);
  }

  // PinKeys (domain/credentials.ts): PIN hashes record the key id too.
  newestPinKey(): { id: number; key: KeyObject } {
    const key = this.sealing();
    return { id: key.id, key: key.pinKey };
  }

  /**
   * undefined for a retired key (its PIN hashes are refused: the PIN must be
   * issued again); throws UnknownCardKeyError, a retryable 503 that counts no
   * wrong PIN, for a key not loaded yet.
   */
  pinKeyOf(id: number): KeyObject | undefined {
    if (this.#retired.has(id)) return undefined;
    return this.key(id).pinKey;
  }

  #reloadIfStale(): void {
    if (this.#reload !== null && this.#nowMs() - this.#loadedAtMs >= RING_REFRESH_MS) this.#reload();
  }

  toJSON(): string {
    return 'KeyRing';
  }
}
