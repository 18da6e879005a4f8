// The key providers this configuration can use: the local one whenever a
// local key is configured (PAYRAIL_CARD_KEY, or the sandbox's key file), and
// Vault transit when PAYRAIL_KEY_PROVIDER=vault. New data keys are wrapped by
// the chosen one; each stored key is unwrapped by the one that wrapped it.
import type { Config } from '../../config.ts';
import { loadCardKey } from '../../crypto/card-key.ts';
import type { KeyProvider } from '../../providers/card-keys/key-provider.ts';
import { localKeyProvider } from '../../providers/card-keys/local.ts';
import { vaultTransitKeyProvider } from '../../providers/card-keys/vault-transit.ts';

export type KeyConfig = Pick<Config, 'cardKeyBase64' | 'environment' | 'dataDir' | 'cardKeyFile' | 'cardKeys'>;

export interface KeyProviders {
  /** The configured key itself (key 1 when its provider is `configured`), or null when none is configured. */
  readonly localKey: Buffer | null;
  readonly byName: ReadonlyMap<string, KeyProvider>;
  /** Wraps new data keys. */
  readonly wrapping: KeyProvider;
}

const cache = new WeakMap<object, KeyProviders>();

export function keyProvidersOf(config: KeyConfig): KeyProviders {
  const cached = cache.get(config);
  if (cached !== undefined) return cached;
  const localKey = config.cardKeyBase64 !== null || config.environment === 'sandbox' ? loadCardKey(config) : null;
  const byName = new Map<string, KeyProvider>();
  if (localKey !== null) byName.set('local', localKeyProvider(localKey));
  if (config.cardKeys.vaultTransit !== null) byName.set('vault', vaultTransitKeyProvider(config.cardKeys.vaultTransit));
  const wrapping = byName.get(config.cardKeys.keyProvider);
  if (wrapping === undefined)
    throw new Error(`the ${config.cardKeys.keyProvider} key provider is not configured (PAYRAIL_KEY_PROVIDER; the local one needs PAYRAIL_CARD_KEY)`);
  const providers: KeyProviders = { localKey, byName, wrapping };
  cache.set(config, providers);
  return providers;
}
