// Loads the card-data key ring of a service from the store, unwrapping each
// active key with its provider once per process, and installs it where
// cardCipherFor finds it (src/crypto/card-key.ts). Called when a service
// starts; afterwards the ring asks for a reload itself, at most every
// RING_REFRESH_MS, or when it meets a key id it does not hold, so the hot
// path never queries the key table.
//
// The first process to start on a store without keys records key 1: the
// configured key itself when there is one (what all existing data was
// sealed with), else a new random data key wrapped by the key provider.
//
// Every key is recorded with its check value (crypto/key-ring.ts
// keyCheckValue). A process whose key does not match what the store
// recorded (a changed PAYRAIL_CARD_KEY, another store's sandbox key file)
// refuses to start rather than seal new data under a different "key 1"; a
// sandbox never generates a new key file for a store that already has keys.
import crypto from 'node:crypto';
import type { Logger } from 'pino';
import { cardKeyFileOf, cardKeyFileToGenerate, installKeyRing } from '../../crypto/card-key.ts';
import { DataKey, KeyRing, keyCheckValue, LEGACY_KEY_ID, RING_REFRESH_MS } from '../../crypto/key-ring.ts';
import { DATA_KEY_BYTES } from '../../providers/card-keys/key-provider.ts';
import type { Service } from '../../service.ts';
import { type CardKeyRow, insertCardKey, listCardKeys, recordCardKeyCheck } from '../../store/card-keys.ts';
import { type KeyConfig, keyProvidersOf } from './providers.ts';

/** `clock`: what key activation and refreshes are timed by (the service's clock; the system clock when absent). */
export type RingContext = Pick<Service, 'db' | 'log'> & { readonly config: KeyConfig; readonly clock?: { nowMs(): number } };

interface Loaded {
  readonly ring: KeyRing;
  /** Unwrapped keys by id and wrapped text: a refresh unwraps only keys it has not seen. */
  readonly unwrapped: Map<string, Buffer>;
  reloading: Promise<void> | null;
}

const loadedRings = new WeakMap<object, Loaded>();

/** The keys this process holds are not the store's: the process must not start (a retry would not help). */
export class CardKeyMismatchError extends Error {
  override readonly name = 'CardKeyMismatchError';
}

/** Loads (or reloads) the ring of this configuration and store, and installs it. */
export async function loadKeyRing(context: RingContext): Promise<KeyRing> {
  const existing = loadedRings.get(context.config);
  if (existing !== undefined) {
    await reload(context, existing);
    return existing.ring;
  }
  const unwrapped = new Map<string, Buffer>();
  const clock = context.clock;
  const ring = new KeyRing([], clock === undefined ? Date.now : () => clock.nowMs());
  const loaded: Loaded = { ring, unwrapped, reloading: null };
  ring.setReload(() => {
    void reload(context, loaded).catch(() => undefined);
  });
  loadedRings.set(context.config, loaded);
  installKeyRing(context.config, ring);
  // A failure leaves the ring empty (card operations answer "retry" and reload it), so the service still starts;
  // a key that is not the store's stops it.
  try {
    await reload(context, loaded);
  } catch (error) {
    if (error instanceof CardKeyMismatchError) {
      loadedRings.delete(context.config);
      throw error;
    }
  }
  return ring;
}

/**
 * A reload when the ring was last loaded more than RING_REFRESH_MS ago (so
 * an idle process holds every key before its next request opens data sealed
 * under one), else null at no cost: called before each request and each
 * worker round. Never rejects; a failed reload is logged and retried later.
 */
export function refreshKeyRingIfStale(context: RingContext): Promise<void> | null {
  const loaded = loadedRings.get(context.config);
  if (loaded === undefined) return null;
  const nowMs = context.clock?.nowMs() ?? Date.now();
  if (loaded.reloading === null && nowMs - loaded.ring.loadedAtMs < RING_REFRESH_MS) return null;
  return reload(context, loaded).catch(() => undefined);
}

/** One reload at a time; a failed one is logged and tried again a refresh interval later. */
function reload(context: RingContext, loaded: Loaded): Promise<void> {
  loaded.reloading ??= (async () => {
    try {
      const { keys, retired } = await readKeys(context, loaded.unwrapped);
      loaded.ring.replace(keys, retired);
    } catch (error) {
      loaded.ring.deferRefresh();
      logOf(context).error({ err: error }, 'could not reload the card-data keys; will try again');
      throw error;
    } finally {
      loaded.reloading = null;
    }
  })();
  return loaded.reloading;
}

async function readKeys(context: RingContext, unwrapped: Map<string, Buffer>): Promise<{ keys: DataKey[]; retired: number[] }> {
  let rows = await listCardKeys(context.db);
  if (rows.length === 0) {
    await recordFirstKey(context);
    rows = await listCardKeys(context.db);
  } else {
    const file = cardKeyFileToGenerate(context.config);
    if (file !== null) {
      throw new CardKeyMismatchError(
        `this store already has its card-data keys, but their sandbox key file is not at ${file} (the store was opened through another path: ` +
          `a symlink, a moved folder, another HOME or XDG_CONFIG_HOME?); Payrail will not make a new key for it. Set PAYRAIL_CARD_KEY_FILE to the ` +
          `key file the store was created with (under $XDG_CONFIG_HOME/payrail/card-keys/ or ~/.config/payrail/card-keys/ of the user who first started it)`,
      );
    }
  }
  const keys: DataKey[] = [];
  const retired: number[] = [];
  for (const row of rows) {
    if (row.state !== 'active') {
      retired.push(row.id);
      continue;
    }
    const master = await keyOf(context, row, unwrapped);
    await checkKey(context, row, master);
    keys.push(new DataKey(row.id, master, row.active_from_ms));
  }
  if (keys.length === 0) throw new Error('the store has no active card-data key');
  return { keys, retired };
}

async function keyOf(context: RingContext, row: CardKeyRow, unwrapped: Map<string, Buffer>): Promise<Buffer> {
  const providers = keyProvidersOf(context.config);
  if (row.provider === 'configured') {
    if (providers.localKey === null) throw new Error(`card-data key ${row.id} is the configured PAYRAIL_CARD_KEY, which is not set`);
    return providers.localKey;
  }
  const cacheKey = `${row.id}:${row.wrapped}`;
  const cached = unwrapped.get(cacheKey);
  if (cached !== undefined) return cached;
  const provider = providers.byName.get(row.provider);
  if (provider === undefined || row.wrapped === null)
    throw new Error(`card-data key ${row.id} is wrapped by the ${row.provider} key provider, which is not configured`);
  const key = await provider.unwrap(row.wrapped, { keyId: row.id });
  unwrapped.set(cacheKey, key);
  return key;
}

/** Refuses a key that is not the one the store recorded; records the check value of a row recorded before there were any. */
async function checkKey(context: RingContext, row: CardKeyRow, master: Buffer): Promise<void> {
  const check = keyCheckValue(master);
  if (row.key_check === null) {
    await recordCardKeyCheck(context.db, row.id, check);
    return;
  }
  // A plain comparison: the recorded value is not secret, and the key compared is this process's own.
  if (row.key_check === check) return;
  throw new CardKeyMismatchError(mismatchMessage(context, row));
}

function mismatchMessage(context: RingContext, row: CardKeyRow): string {
  const refusal = 'Payrail refuses to start rather than seal new data under a key the store does not know';
  if (row.provider !== 'configured')
    return `card-data key ${row.id} (wrapped by ${row.provider}) does not match the check value this store recorded for it; ${refusal}`;
  if (context.config.cardKeyBase64 !== null)
    return `PAYRAIL_CARD_KEY is not card-data key 1 of this store (its check value differs from the one recorded): it was changed; set it back to the key the store's data was sealed with. ${refusal}`;
  return `the sandbox key file ${cardKeyFileOf(context.config)} does not hold card-data key 1 of this store (its check value differs from the one recorded): it belongs to another store; set PAYRAIL_CARD_KEY_FILE to the key file this store was created with. ${refusal}`;
}

async function recordFirstKey(context: RingContext): Promise<void> {
  const providers = keyProvidersOf(context.config);
  const nowMs = context.clock?.nowMs() ?? Date.now();
  if (providers.localKey !== null) {
    // Whatever provider wraps later keys, existing data was sealed with the configured key.
    await insertCardKey(context.db, {
      id: LEGACY_KEY_ID,
      provider: 'configured',
      wrapped: null,
      created_at_ms: nowMs,
      active_from_ms: 0,
      key_check: keyCheckValue(providers.localKey),
    });
    return;
  }
  const key = crypto.randomBytes(DATA_KEY_BYTES);
  const wrapped = await providers.wrapping.wrap(key, { keyId: LEGACY_KEY_ID });
  await insertCardKey(context.db, {
    id: LEGACY_KEY_ID,
    provider: providers.wrapping.name as CardKeyRow['provider'],
    wrapped,
    created_at_ms: nowMs,
    active_from_ms: 0,
    key_check: keyCheckValue(key),
  });
}

function logOf(context: RingContext): Logger {
  return context.log;
}
