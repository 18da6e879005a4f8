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

const KEY_CHECK_LABEL = 'payrail:key-check:v1';
/** Hex digits kept of the check value: 128 bits, enough to tell keys apart. */
const KEY_CHECK_HEX = 32;

/**
 * A card-data key's check value, recorded with the key in the store: an
 * HMAC-SHA256 of a fixed label under an HKDF subkey of the key, truncated.
 * A process holding another key (a changed PAYRAIL_CARD_KEY, the sandbox key
 * file of another store) computes another value and refuses to start. It is
 * a one-way function of the key under its own subkey, so it neither is nor
 * helps recover the key or any key derived for another purpose.
 */
export function keyCheckValue(master: Buffer): string {
  return crypto.createHmac('sha256', deriveSubkeyObject(master, 'keyCheck')).update(KEY_CHECK_LABEL).digest('hex').slice(0, KEY_CHECK_HEX);
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

/**
 * How long after `rotate` a new key starts sealing: every running process
 * reloads its ring within RING_REFRESH_MS, so by then all hold the new key
 * before any data is sealed under it. Also the longest a ring may go since
 * its last successful load and still seal (KeyRing.sealing says why).
 */
export const ACTIVATION_DELAY_MS = 3 * RING_REFRESH_MS;

export class KeyRing implements PinKeys {
  #keys = new Map<number, DataKey>();
  /** Ids of retired keys: what they made is refused, where an unknown id means "not loaded yet". */
  #retired = new Set<number>();
  #loadedAtMs: number;
  /** When the loader last installed what it read (a failed reload leaves it): how current the ring is. */
  #loadedOkAtMs: number;
  /** Whether a reload failed since then. */
  #reloadFailed = false;
  readonly #nowMs: () => number;
  /** Asks the loader for a fresh ring (asynchronously, once at a time); null for a fixed ring. */
  #reload: (() => void) | null = null;

  constructor(keys: readonly DataKey[], nowMs: () => number = Date.now, retiredIds: readonly number[] = []) {
    this.#nowMs = nowMs;
    this.#loadedAtMs = nowMs();
    this.#loadedOkAtMs = this.#loadedAtMs;
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
    this.#loadedOkAtMs = this.#loadedAtMs;
    this.#reloadFailed = false;
  }

  /** After a failed reload: the next try waits a refresh interval, instead of following every call. */
  deferRefresh(): void {
    this.#loadedAtMs = this.#nowMs();
    this.#reloadFailed = true;
  }

  setReload(reload: () => void): void {
    this.#reload = reload;
  }

  get loadedAtMs(): number {
    return this.#loadedAtMs;
  }

  /**
   * The key new data is sealed under: the newest one already active.
   *
   * Refused (retryable 503, and a reload asked for) once the ring cannot be
   * refreshed and its last successful load is older than ACTIVATION_DELAY_MS:
   * a process whose reloads keep failing (key provider unreachable from its
   * host, a key wrapped by a provider it has not configured) must not go on
   * sealing under a key that may have been retired meanwhile. The timing: a
   * key rotated at T starts sealing at T + 45 s, and the key it replaces may
   * be retired from that activation + 15 s = T + 60 s on, after a recount of
   * what it still seals. A ring that seals at t loaded successfully at
   * L >= t - 45 s. If L >= T it has seen the rotation and stops sealing under
   * the old key at T + 45 s like every other process; if L < T it seals only
   * while t <= L + 45 s < T + 45 s, at least 15 s before retirement is
   * allowed, so the recount sees what it sealed and the old key stays. Every
   * process that seals has thus seen every rotation that could lead to a
   * retirement of its sealing key.
   *
   * A ring that merely has not tried to reload since (an idle process) is
   * not refused here: every request and every worker round first awaits a
   * reload once the ring is RING_REFRESH_MS old (http/app.ts, the worker's
   * card-keys.refresh job), so a seal after a quiet spell follows a reload
   * that either succeeded or failed, and a failed one is refused here.
   */
  sealing(): DataKey {
    this.#reloadIfStale();
    const nowMs = this.#nowMs();
    if (this.#reload !== null && this.#reloadFailed && nowMs - this.#loadedOkAtMs > ACTIVATION_DELAY_MS) {
      this.#reload();
      throw new ApiError(
        'card_key_loading',
        'the card-data keys could not be reloaded for too long to seal under them (is the key provider reachable?); retry',
      );
    }
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
