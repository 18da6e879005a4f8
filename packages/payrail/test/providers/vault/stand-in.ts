// A stand-in for HashiCorp Vault's transit secrets engine, written from
// Vault's public API documentation (transit: encrypt, decrypt, rewrap, key
// rotate and config), for the key provider's tests: requests need the
// X-Vault-Token header; plaintext travels base64; ciphertexts are
// `vault:v<key version>:<base64>`; rotating a key adds a version that new
// encryptions use; older versions decrypt until min_decryption_version is
// raised past them; rewrap re-encrypts under the newest version without
// returning the plaintext; errors answer {"errors": [...]}. Encrypting with
// a key name that does not exist creates it, as Vault does when the policy
// allows it.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface TransitKey {
  versions: Buffer[];
  minDecryptionVersion: number;
}

export interface VaultStandIn {
  readonly address: string;
  readonly token: string;
  /** Requests received, as `METHOD path` (for asserting what the provider called). */
  readonly calls: string[];
  rotate(name: string): void;
  setMinDecryptionVersion(name: string, version: number): void;
  close(): Promise<void>;
}

export async function startVaultStandIn(token = `hvs.${crypto.randomBytes(12).toString('hex')}`): Promise<VaultStandIn> {
  const keys = new Map<string, TransitKey>();
  const calls: string[] = [];
  const keyOf = (name: string, create: boolean): TransitKey | undefined => {
    let key = keys.get(name);
    if (key === undefined && create) {
      key = { versions: [crypto.randomBytes(32)], minDecryptionVersion: 1 };
      keys.set(name, key);
    }
    return key;
  };
  const encrypt = (key: TransitKey, plaintext: Buffer): string => {
    const version = key.versions.length;
    const nonce = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', key.versions[version - 1]!, nonce);
    const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
    return `vault:v${version}:${Buffer.concat([nonce, body]).toString('base64')}`;
  };
  const decrypt = (key: TransitKey, ciphertext: string): Buffer | string => {
    const match = /^vault:v([0-9]+):(.+)$/.exec(ciphertext);
    if (match === null) return 'invalid ciphertext: no prefix';
    const version = Number(match[1]);
    if (version < key.minDecryptionVersion) return 'ciphertext or signature version is disallowed by policy (too old)';
    const secret = key.versions[version - 1];
    if (secret === undefined) return 'invalid ciphertext: key version not found';
    const raw = Buffer.from(match[2]!, 'base64');
    try {
      const decipher = crypto.createDecipheriv('aes-256-gcm', secret, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(raw.length - 16));
      return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
    } catch {
      return 'cipher: message authentication failed';
    }
  };

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = (request.url ?? '').split('?')[0]!;
      calls.push(`${request.method} ${path}`);
      const answer = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      const errors = (status: number, ...messages: string[]) => answer(status, { errors: messages });
      if (request.headers['x-vault-token'] !== token) return errors(403, 'permission denied');
      let body: Record<string, unknown> = {};
      try {
        body = chunks.length === 0 ? {} : JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return errors(400, 'failed to parse JSON input');
      }
      const route = /^\/v1\/transit\/(encrypt|decrypt|rewrap|keys)\/([^/]+)(\/rotate|\/config)?$/.exec(path);
      if (request.method !== 'POST' || route === null) return errors(404, `no handler for route "${path}"`);
      const [, operation, name, sub] = route;
      const data = (fields: Record<string, unknown>) =>
        answer(200, {
          request_id: crypto.randomUUID(),
          lease_id: '',
          renewable: false,
          lease_duration: 0,
          data: fields,
          wrap_info: null,
          warnings: null,
          auth: null,
        });
      if (operation === 'keys') {
        if (sub === '/rotate') {
          const key = keyOf(name!, false);
          if (key === undefined) return errors(400, 'key not found');
          key.versions.push(crypto.randomBytes(32));
          return data({ latest_version: key.versions.length });
        }
        keyOf(name!, true);
        return response.writeHead(204).end();
      }
      if (operation === 'encrypt') {
        if (typeof body.plaintext !== 'string') return errors(400, 'missing plaintext to encrypt');
        const key = keyOf(name!, true)!;
        return data({ ciphertext: encrypt(key, Buffer.from(body.plaintext, 'base64')), key_version: key.versions.length });
      }
      const key = keyOf(name!, false);
      if (key === undefined) return errors(400, 'encryption key not found');
      if (typeof body.ciphertext !== 'string') return errors(400, 'missing ciphertext to decrypt');
      const plain = decrypt(key, body.ciphertext);
      if (typeof plain === 'string') return errors(400, plain);
      if (operation === 'decrypt') return data({ plaintext: plain.toString('base64') });
      return data({ ciphertext: encrypt(key, plain), key_version: key.versions.length });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `http://127.0.0.1:${port}`,
    token,
    calls,
    rotate(name) {
      const key = keyOf(name, false);
      if (key === undefined) throw new Error(`no transit key ${name}`);
      key.versions.push(crypto.randomBytes(32));
    },
    setMinDecryptionVersion(name, version) {
      keyOf(name, false)!.minDecryptionVersion = version;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
