// HashiCorp Vault's transit secrets engine as the key provider: the KEK is a
// named transit key that never leaves Vault; Payrail asks Vault to encrypt
// and decrypt its data keys over Vault's HTTP API
// (POST /v1/<mount>/encrypt/<name>, /decrypt/<name>, /rewrap/<name>, token in
// the X-Vault-Token header, base64 plaintext, `vault:v<version>:` ciphertexts).
//
// Rotating the transit key in Vault (POST /v1/<mount>/keys/<name>/rotate)
// adds a key version; ciphertexts of older versions still decrypt until the
// operator raises min_decryption_version, so `payrail keys rewrap` rewraps
// every stored data key under the newest version first.
//
// The data key's id is sealed with it (4 bytes before the key): a wrapped key
// copied to another id's row is refused, without needing a derived
// (context-taking) transit key.
import type { Secret } from '../../domain/secret.ts';
import { readBoundedText } from '../http-answer.ts';
import { DATA_KEY_BYTES, type KeyProvider, type WrapContext } from './key-provider.ts';

export interface VaultTransitSettings {
  /** Vault's address, e.g. https://vault.internal:8200 (VAULT_ADDR). */
  readonly address: string;
  /** A token allowed to update <mount>/encrypt/<key>, <mount>/decrypt/<key> and <mount>/rewrap/<key> (VAULT_TOKEN). */
  readonly token: Secret<string>;
  /** The transit key's name. */
  readonly keyName: string;
  /** Where the transit engine is mounted; "transit" unless configured. */
  readonly mount: string;
  /** Vault Enterprise namespace, or null. */
  readonly namespace: string | null;
  /** How long one call may take. */
  readonly timeoutMs: number;
}

/** Vault's answers here are a few hundred bytes. */
const ANSWER_BYTES_MAX = 64 * 1024;
const CIPHERTEXT = /^vault:v[1-9][0-9]{0,9}:[A-Za-z0-9+/=]{1,4096}$/;

export function vaultTransitKeyProvider(settings: VaultTransitSettings, fetchImpl: typeof fetch = fetch): KeyProvider {
  const base = `${settings.address.replace(/\/+$/, '')}/v1/${settings.mount.split('/').map(encodeURIComponent).join('/')}`;
  const name = encodeURIComponent(settings.keyName);

  async function call(operation: 'encrypt' | 'decrypt' | 'rewrap', body: Record<string, string>): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-vault-token': settings.token.reveal() };
    if (settings.namespace !== null) headers['x-vault-namespace'] = settings.namespace;
    let response: Response;
    try {
      response = await fetchImpl(`${base}/${operation}/${name}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(settings.timeoutMs),
      });
    } catch (error) {
      // fetch's own message may quote the URL; the name and code say enough.
      const code = (error as { cause?: { code?: unknown } }).cause?.code;
      throw new Error(
        `Vault transit ${operation} could not be reached (${error instanceof Error ? error.name : 'error'}${typeof code === 'string' ? `: ${code}` : ''})`,
      );
    }
    const text = await readBoundedText(response, ANSWER_BYTES_MAX, () => new Error(`Vault transit ${operation} answered more than ${ANSWER_BYTES_MAX} bytes`));
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
    if (!response.ok) {
      const errors = (parsed as { errors?: unknown } | null)?.errors;
      const words = Array.isArray(errors)
        ? errors
            .filter((e) => typeof e === 'string')
            .join('; ')
            .slice(0, 300)
        : '';
      throw new Error(`Vault transit ${operation} answered ${response.status}${words === '' ? '' : `: ${words}`}`);
    }
    const data = (parsed as { data?: unknown } | null)?.data;
    if (typeof data !== 'object' || data === null) throw new Error(`Vault transit ${operation} answered without data`);
    return data as Record<string, unknown>;
  }

  function ciphertextOf(data: Record<string, unknown>, operation: string): string {
    const ciphertext = data.ciphertext;
    if (typeof ciphertext !== 'string' || !CIPHERTEXT.test(ciphertext)) throw new Error(`Vault transit ${operation} answered no vault:v<n>: ciphertext`);
    return ciphertext;
  }

  return {
    name: 'vault',
    async wrap(dataKey: Buffer, context: WrapContext): Promise<string> {
      const plaintext = Buffer.concat([idBytes(context), dataKey]).toString('base64');
      return ciphertextOf(await call('encrypt', { plaintext }), 'encrypt');
    },
    async unwrap(wrapped: string, context: WrapContext): Promise<Buffer> {
      if (!CIPHERTEXT.test(wrapped)) throw new Error(`data key ${context.keyId} was not wrapped by Vault transit`);
      const data = await call('decrypt', { ciphertext: wrapped });
      const plaintext = typeof data.plaintext === 'string' ? Buffer.from(data.plaintext, 'base64') : Buffer.alloc(0);
      if (plaintext.length !== 4 + DATA_KEY_BYTES || !plaintext.subarray(0, 4).equals(idBytes(context))) {
        throw new Error(`Vault transit returned no data key ${context.keyId} for its wrapped text (copied from another key?)`);
      }
      return plaintext.subarray(4);
    },
    async rewrap(wrapped: string, context: WrapContext): Promise<string> {
      if (!CIPHERTEXT.test(wrapped)) throw new Error(`data key ${context.keyId} was not wrapped by Vault transit`);
      return ciphertextOf(await call('rewrap', { ciphertext: wrapped }), 'rewrap');
    },
  };
}

/** The key version of a `vault:v<n>:` ciphertext (shown by `payrail keys status`). */
export function vaultKeyVersionOf(wrapped: string): number | null {
  const match = /^vault:v([0-9]+):/.exec(wrapped);
  return match === null ? null : Number(match[1]);
}

function idBytes(context: WrapContext): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(context.keyId);
  return bytes;
}
