// Where the card-data key comes from. Configuration (PAYRAIL_CARD_KEY) wins;
// production refuses to start without a key provider (src/config.ts). A
// sandbox without one generates a key on first use and keeps it in a key
// file OUTSIDE the data directory (a copy of the data directory, or of its
// backups, must not carry the key that opens it): by default
// $XDG_CONFIG_HOME/payrail/card-keys/<name>.key (~/.config when
// XDG_CONFIG_HOME is unset), named after the data directory so each
// installation on the machine has its own; PAYRAIL_CARD_KEY_FILE chooses
// another path. A key file left in the data directory by an older version
// (card-data.key) is moved there on first use, so its data keeps opening.
//
// The file is created atomically: the key is written to a private temporary
// file which is then hard-linked to its final name. link(2) fails if the
// name exists, so when two processes start together exactly one key wins and
// both read it back; no process ever sees a half-written file.
//
// This key is key 1 of the card-data key ring (src/crypto/key-ring.ts) and
// the local key provider's key-encryption key (providers/card-keys/local.ts).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../config.ts';
import type { PinKeys } from '../domain/credentials.ts';
import { CARD_KEY_BYTES, CardCipher } from './card-cipher.ts';
import { DataKey, KeyRing, LEGACY_KEY_ID } from './key-ring.ts';

/** The key file's name in the data directory, where versions before 0.39 kept it. */
export const CARD_KEY_FILE_NAME = 'card-data.key';
const KEY_FILE_MODE = 0o600;
/** The data directory holds the store: its owner alone may enter it. */
export const DATA_DIR_MODE = 0o700;
/** The key file's directory: its owner alone may enter it. */
const KEY_DIR_MODE = 0o700;

type KeySource = Pick<Config, 'cardKeyBase64' | 'environment' | 'dataDir'> & { readonly cardKeyFile?: string | null };

/**
 * The default sandbox key file of a data directory: under the user's
 * configuration directory, named by a hash of the data directory's absolute
 * path (and its last segment, for people reading the directory).
 */
export function defaultCardKeyFile(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const absolute = path.resolve(dataDir);
  const configHome = env.XDG_CONFIG_HOME !== undefined && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(os.homedir(), '.config');
  const tag = crypto.createHash('sha256').update(absolute).digest('hex').slice(0, 16);
  const label = path
    .basename(absolute)
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .slice(0, 40);
  return path.join(configHome, 'payrail', 'card-keys', `${label}-${tag}.key`);
}

/** The sandbox key file this configuration uses. */
export function cardKeyFileOf(config: KeySource): string {
  return config.cardKeyFile ?? defaultCardKeyFile(config.dataDir);
}

/**
 * The key file loadCardKey would generate a new key in (a sandbox without
 * PAYRAIL_CARD_KEY, with neither its key file nor an older version's key
 * file in the data directory), or null when it would read an existing key.
 * A store that already recorded its keys must not get a new one: the store
 * was opened through another path (a symlink, a moved folder, another HOME)
 * and its key file is elsewhere (flows/card-keys/ring-loader.ts refuses).
 */
export function cardKeyFileToGenerate(config: KeySource): string | null {
  if (config.cardKeyBase64 !== null || config.environment !== 'sandbox') return null;
  const file = cardKeyFileOf(config);
  if (fs.existsSync(file) || fs.existsSync(path.join(config.dataDir, CARD_KEY_FILE_NAME))) return null;
  return file;
}

export function loadCardKey(config: KeySource): Buffer {
  if (config.cardKeyBase64 !== null) return decodeKey(Buffer.from(config.cardKeyBase64, 'base64'), 'PAYRAIL_CARD_KEY');
  if (config.environment !== 'sandbox') throw new Error('production needs PAYRAIL_CARD_KEY (card-data encryption key)');
  const file = cardKeyFileOf(config);
  const existing = readKeyFile(file);
  if (existing !== null) return existing;
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: KEY_DIR_MODE });
  const legacyFile = path.join(config.dataDir, CARD_KEY_FILE_NAME);
  if (path.resolve(legacyFile) !== path.resolve(file)) {
    const legacy = readKeyFile(legacyFile);
    if (legacy !== null) return moveKeyFile(legacyFile, legacy, file);
  }
  createKeyFile(file, `${crypto.randomBytes(CARD_KEY_BYTES).toString('base64')}\n`);
  const key = readKeyFile(file);
  if (key === null) throw new Error(`card-data key file ${file} vanished while it was being created`);
  return key;
}

/** Moves a data directory's key file to `file`; the old name goes only once the new one holds the same key. */
function moveKeyFile(legacyFile: string, legacy: Buffer, file: string): Buffer {
  createKeyFile(file, `${legacy.toString('base64')}\n`);
  const moved = readKeyFile(file);
  if (moved === null) throw new Error(`card-data key file ${file} vanished while it was being created`);
  if (moved.equals(legacy)) fs.rmSync(legacyFile, { force: true });
  // Another process created a different key there first: the data directory's key is the one its data needs.
  else throw new Error(`card-data key files ${legacyFile} and ${file} hold different keys; keep the one the data was sealed with and remove the other`);
  return moved;
}

/** Writes `text` to `file` unless it exists (then leaves it), atomically. */
function createKeyFile(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`;
  try {
    const fd = fs.openSync(temporary, 'wx', KEY_FILE_MODE);
    try {
      fs.writeSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    try {
      fs.linkSync(temporary, file);
    } catch (error) {
      // Another process linked its key first: that one is the key.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

function readKeyFile(file: string): Buffer | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return decodeKey(Buffer.from(text.trim(), 'base64'), file);
}

function decodeKey(key: Buffer, where: string): Buffer {
  if (key.length !== CARD_KEY_BYTES) throw new Error(`${where} must hold the base64 of exactly ${CARD_KEY_BYTES} bytes`);
  return key;
}

// The key ring of each service, installed when the service starts
// (flows/card-keys/ring-loader.ts) and found by its configuration object, so
// the HTTP routes and the worker share it. Code given a configuration no
// service was started with (tools, some tests) gets a ring of key 1 alone,
// one per key source, so the key file is read once per process.
const installed = new WeakMap<object, KeyRing>();
const fallbackRings = new Map<string, KeyRing>();
const ciphers = new WeakMap<KeyRing, CardCipher>();

export function installKeyRing(config: KeySource, ring: KeyRing): void {
  installed.set(config, ring);
}

function cacheKeyOf(config: KeySource): string {
  return config.cardKeyBase64 !== null
    ? `env:${crypto.createHash('sha256').update(config.cardKeyBase64).digest('hex')}`
    : `file:${cardKeyFileOf(config)}:${config.dataDir}`;
}

export function keyRingFor(config: KeySource): KeyRing {
  const ring = installed.get(config);
  if (ring !== undefined) return ring;
  const cacheKey = cacheKeyOf(config);
  let fallback = fallbackRings.get(cacheKey);
  if (fallback === undefined) {
    fallback = new KeyRing([new DataKey(LEGACY_KEY_ID, loadCardKey(config), 0)]);
    fallbackRings.set(cacheKey, fallback);
  }
  return fallback;
}

export function cardCipherFor(config: KeySource): CardCipher {
  const ring = keyRingFor(config);
  let cipher = ciphers.get(ring);
  if (cipher === undefined) {
    cipher = new CardCipher(ring);
    ciphers.set(ring, cipher);
  }
  return cipher;
}

/**
 * The HMAC keys of stored PIN hashes: derived from each card-data key, so
 * they live where those keys live, never in the database. A PIN hash records
 * the key it was made under (domain/credentials.ts); one made under an older
 * key is made again under the newest at the PIN's next success.
 */
export function pinKeyFor(config: KeySource): PinKeys {
  return keyRingFor(config);
}
