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
import crypto from 'node:crypto';
import type { Logger } from 'pino';
import { installKeyRing } from '../../crypto/card-key.ts';
import { DataKey, KeyRing, LEGACY_KEY_ID, RING_REFRESH_MS } from '../../crypto/key-ring.ts';
import { DATA_KEY_BYTES } from '../../providers/card-keys/key-provider.ts';
import type { Service } from '../../service.ts';
import { type CardKeyRow, insertCardKey, listCardKeys } from '../../store/card-keys.ts';
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
  // A failure leaves the ring empty (card operations answer "retry" and reload it), so the service still starts.
  await reload(context, loaded).catch(() => undefined);
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
  }
  const keys: DataKey[] = [];
  const retired: number[] = [];
  for (const row of rows) {
    if (row.state !== 'active') {
      retired.push(row.id);
      continue;
    }
    keys.push(new DataKey(row.id, await keyOf(context, row, unwrapped), row.active_from_ms));
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

async function recordFirstKey(context: RingContext): Promise<void> {
  const providers = keyProvidersOf(context.config);
  const nowMs = context.clock?.nowMs() ?? Date.now();
  if (providers.localKey !== null) {
    // Whatever provider wraps later keys, existing data was sealed with the configured key.
    await insertCardKey(context.db, { id: LEGACY_KEY_ID, provider: 'configured', wrapped: null, created_at_ms: nowMs, active_from_ms: 0 });
    return;
  }
  const wrapped = await providers.wrapping.wrap(crypto.randomBytes(DATA_KEY_BYTES), { keyId: LEGACY_KEY_ID });
  await insertCardKey(context.db, {
    id: LEGACY_KEY_ID,
    provider: providers.wrapping.name as CardKeyRow['provider'],
    wrapped,
    created_at_ms: nowMs,
    active_from_ms: 0,
  });
}

function logOf(context: RingContext): Logger {
  return context.log;
}
