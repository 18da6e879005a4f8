// Rotating the card-data keys (docs/security.md): `payrail keys rotate` adds
// a data key, wrapped by the key provider, that seals new data from its
// activation on; the worker's re-seal job (reseal.ts) moves existing data to
// it; `payrail keys status` shows what each key still protects; `payrail
// keys retire` drops a key's wrapping once nothing uses it.
import crypto from 'node:crypto';
import { ACTIVATION_DELAY_MS, keyCheckValue, RING_REFRESH_MS } from '../../crypto/key-ring.ts';
import { fail } from '../../errors.ts';
import { DATA_KEY_BYTES } from '../../providers/card-keys/key-provider.ts';
import { vaultKeyVersionOf } from '../../providers/card-keys/vault-transit.ts';
import {
  type CardKeyRow,
  emptyKeyUse,
  insertCardKey,
  type KeyUse,
  keyUsesByKey,
  listCardKeys,
  resealPositions,
  retireCardKeyIfUnused,
  rewrapCardKeyRow,
  SEALED_TARGETS,
} from '../../store/card-keys.ts';
import { keyProvidersOf } from './providers.ts';
import { loadKeyRing, type RingContext } from './ring-loader.ts';

/** How long after `rotate` a new key starts sealing (crypto/key-ring.ts, where sealing depends on it too). */
export { ACTIVATION_DELAY_MS };

export type KeysContext = RingContext & { readonly clock: { nowMs(): number } };

export interface RotateResult {
  readonly key_id: number;
  readonly provider: string;
  readonly active_from_ms: number;
}

/**
 * Adds a new data key. `activateNow` skips the activation delay: for an
 * installation whose only running process is this one (or none), since a
 * process that has not loaded the key yet meets it as "loading, retry".
 */
export async function rotateCardKey(context: KeysContext, options: { activateNow?: boolean } = {}): Promise<RotateResult> {
  await loadKeyRing(context);
  const providers = keyProvidersOf(context.config);
  const rows = await listCardKeys(context.db);
  const id = Math.max(0, ...rows.map((row) => row.id)) + 1;
  const nowMs = context.clock.nowMs();
  const key = crypto.randomBytes(DATA_KEY_BYTES);
  const wrapped = await providers.wrapping.wrap(key, { keyId: id });
  const activeFromMs = options.activateNow === true ? nowMs : nowMs + ACTIVATION_DELAY_MS;
  const added = await insertCardKey(context.db, {
    id,
    provider: providers.wrapping.name as CardKeyRow['provider'],
    wrapped,
    created_at_ms: nowMs,
    active_from_ms: activeFromMs,
    key_check: keyCheckValue(key),
  });
  if (!added) fail('invalid_state', `card-data key ${id} was added by another process meanwhile; run the command again`);
  await loadKeyRing(context);
  return { key_id: id, provider: providers.wrapping.name, active_from_ms: activeFromMs };
}

export type { KeyUse };

export interface KeyStatus {
  readonly id: number;
  readonly state: 'active' | 'retired';
  readonly provider: string;
  /** The Vault transit key version its wrapping is under, when Vault wraps it. */
  readonly provider_key_version: number | null;
  readonly sealing: boolean;
  readonly created_at_ms: number;
  readonly active_from_ms: number;
  readonly retired_at_ms: number | null;
  readonly use: KeyUse;
}

export interface KeysStatus {
  readonly keys: readonly KeyStatus[];
  /** Re-seal job position per column: done, or the row key it reached. */
  readonly reseal: Readonly<Record<string, string>>;
}

export async function cardKeysStatus(context: KeysContext): Promise<KeysStatus> {
  const ring = await loadKeyRing(context);
  const rows = await listCardKeys(context.db);
  const uses = await keyUsesByKey(context.db);
  const sealingId = ring.sealing().id;
  const positions = await resealPositions(context.db);
  const reseal: Record<string, string> = {};
  for (const target of SEALED_TARGETS) {
    if (target.nonce) continue;
    const position = positions.get(target.name);
    reseal[target.name] =
      position === undefined
        ? 'not started'
        : position.done
          ? `done (to key ${position.keyId})`
          : `to key ${position.keyId}, after row ${position.afterKey ?? '(start)'}`;
  }
  return {
    keys: rows.map((row) => ({
      id: row.id,
      state: row.state,
      provider: row.provider,
      provider_key_version: row.provider === 'vault' && row.wrapped !== null ? vaultKeyVersionOf(row.wrapped) : null,
      sealing: row.id === sealingId && row.state === 'active',
      created_at_ms: row.created_at_ms,
      active_from_ms: row.active_from_ms,
      retired_at_ms: row.retired_at_ms,
      use: uses.get(row.id) ?? emptyKeyUse(),
    })),
    reseal,
  };
}

export interface RetireResult {
  readonly key_id: number;
  /** Credentials whose PIN was dropped (--force-pins): their sources need a new PIN. */
  readonly pins_dropped: readonly string[];
}

/**
 * Retires a key: refused while it seals new data, while it became the
 * non-sealing key too recently for every process to have stopped sealing
 * under it, or while anything still uses it. PIN hashes cannot be made
 * again without the PIN (each is made again under the newest key at its
 * next success); `forcePins` drops the remaining ones instead, and the
 * operator gives those sources new PINs.
 */
export async function retireCardKey(context: KeysContext, id: number, options: { forcePins?: boolean } = {}): Promise<RetireResult> {
  const ring = await loadKeyRing(context);
  const rows = await listCardKeys(context.db);
  const row = rows.find((r) => r.id === id);
  if (row === undefined) fail('not_found', `no card-data key ${id}`);
  if (row.state === 'retired') fail('invalid_state', `card-data key ${id} is already retired`);
  const sealing = ring.sealing();
  if (sealing.id === id)
    fail('invalid_state', `card-data key ${id} seals new data; rotate first (payrail keys rotate), let the re-seal job finish, then retire it`);
  const nowMs = context.clock.nowMs();
  if (sealing.id < id) fail('invalid_state', `card-data key ${id} has not started sealing yet; it cannot be retired before the keys older than it`);
  if (sealing.activeFromMs > nowMs - RING_REFRESH_MS) {
    fail(
      'invalid_state',
      `card-data key ${sealing.id} took over from key ${id} too recently for every process to have stopped using it; try again in a minute`,
    );
  }
  // Counted and retired in one transaction holding the key's row (store/card-keys.ts).
  const outcome = await retireCardKeyIfUnused(context.db, id, nowMs, options.forcePins === true);
  if (!outcome.retired && outcome.notActive) fail('invalid_state', `card-data key ${id} was retired by another process meanwhile`);
  if (!outcome.retired) {
    const use = outcome.use;
    const parts = [
      ...Object.entries(use.sealed).map(([column, n]) => `${n} in ${column}`),
      ...(use.fingerprints > 0 ? [`${use.fingerprints} saved-method fingerprints`] : []),
      ...(use.pin_hashes > 0 ? [`${use.pin_hashes} PIN hashes (made again at each PIN's next use; --force-pins drops them)`] : []),
    ];
    fail('invalid_state', `card-data key ${id} is still in use: ${parts.join(', ')}`);
  }
  const pinsDropped = [...outcome.pinsDropped];
  await loadKeyRing(context);
  return { key_id: id, pins_dropped: pinsDropped };
}

/** Wraps every active data key again under the key provider's newest key version (after rotating the transit key in Vault). */
export async function rewrapCardKeys(context: KeysContext): Promise<{ rewrapped: number[] }> {
  const providers = keyProvidersOf(context.config);
  const rewrapped: number[] = [];
  for (const row of await listCardKeys(context.db)) {
    if (row.state !== 'active' || row.wrapped === null) continue;
    const provider = providers.byName.get(row.provider);
    if (provider === undefined) fail('invalid_state', `card-data key ${row.id} is wrapped by the ${row.provider} key provider, which is not configured`);
    const to = await provider.rewrap(row.wrapped, { keyId: row.id });
    if (to !== row.wrapped && (await rewrapCardKeyRow(context.db, row.id, row.wrapped, to))) rewrapped.push(row.id);
  }
  return { rewrapped };
}
