// Settings of the card-data keys (docs/security.md, key rotation): which key
// provider wraps the data keys (PAYRAIL_KEY_PROVIDER), Vault transit's
// settings when it is Vault, and where the sandbox keeps its generated key.
import path from 'node:path';
import { Secret } from '../domain/secret.ts';
import type { VaultTransitSettings } from '../providers/card-keys/vault-transit.ts';
import { secretSetting } from './secret-setting.ts';
import { settingText, type SettingsSource } from './settings-source.ts';

export type KeyProviderChoice = 'local' | 'vault';

export interface CardKeySettings {
  /** Who wraps new data keys: `local` (the configured card-data key) or `vault` (a Vault transit key). */
  readonly keyProvider: KeyProviderChoice;
  readonly vaultTransit: VaultTransitSettings | null;
  /** PAYRAIL_CARD_KEY_FILE: the sandbox's generated key file; null means the default outside the data directory. */
  readonly cardKeyFile: string | null;
}

const WHY = 'with PAYRAIL_KEY_PROVIDER=vault';
const NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const MOUNT = /^[A-Za-z0-9_.-]{1,128}(\/[A-Za-z0-9_.-]{1,128}){0,4}$/;

export function cardKeySettings(source: SettingsSource): CardKeySettings {
  const choice = settingText(source, 'PAYRAIL_KEY_PROVIDER') ?? 'local';
  if (choice !== 'local' && choice !== 'vault') source.problems.push(`PAYRAIL_KEY_PROVIDER must be local or vault, got "${choice.slice(0, 40)}"`);
  const keyProvider: KeyProviderChoice = choice === 'vault' ? 'vault' : 'local';
  const file = settingText(source, 'PAYRAIL_CARD_KEY_FILE');
  const cardKeyFile = file === null ? null : path.resolve(source.baseDir, file);
  return { keyProvider, vaultTransit: keyProvider === 'vault' ? vaultSettings(source) : null, cardKeyFile };
}

function vaultSettings(source: SettingsSource): VaultTransitSettings {
  const address = settingText(source, 'PAYRAIL_VAULT_ADDR');
  if (address === null) source.problems.push(`PAYRAIL_VAULT_ADDR is needed ${WHY} (Vault's address, like https://vault.internal:8200)`);
  else if (!/^https?:\/\/[^\s/]+/.test(address)) source.problems.push(`PAYRAIL_VAULT_ADDR must be an http:// or https:// URL, got "${address.slice(0, 80)}"`);
  else if (source.environment === 'production' && !address.startsWith('https://'))
    source.problems.push('production needs PAYRAIL_VAULT_ADDR to be an https:// URL');
  const token = secretSetting(source, 'PAYRAIL_VAULT_TOKEN', WHY);
  const keyName = settingText(source, 'PAYRAIL_VAULT_TRANSIT_KEY') ?? 'payrail-card-data';
  if (!NAME.test(keyName)) source.problems.push('PAYRAIL_VAULT_TRANSIT_KEY must be a transit key name: letters, digits, _ . - (at most 128)');
  const mount = settingText(source, 'PAYRAIL_VAULT_TRANSIT_MOUNT') ?? 'transit';
  if (!MOUNT.test(mount)) source.problems.push('PAYRAIL_VAULT_TRANSIT_MOUNT must be a mount path: letters, digits, _ . - and /');
  const namespace = settingText(source, 'PAYRAIL_VAULT_NAMESPACE');
  return { address: address ?? '', token: token ?? new Secret(''), keyName, mount, namespace, timeoutMs: 10_000 };
}
