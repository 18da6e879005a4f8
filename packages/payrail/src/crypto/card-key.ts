// Where the card-data key comes from. Configuration (PAYRAIL_CARD_KEY) wins;
// production refuses to start without it (src/config.ts). A sandbox without
// one generates a key on first use and keeps it in the data directory, so
// card data sealed by one run opens in the next and in the worker process.
//
// The file is created atomically: the key is written to a private temporary
// file which is then hard-linked to its final name. link(2) fails if the
// name exists, so when two processes start together exactly one key wins and
// both read it back; no process ever sees a half-written file.
import crypto, { type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { CARD_KEY_BYTES, CardCipher } from './card-cipher.ts';
import { deriveSubkeyObject } from './subkeys.ts';

export const CARD_KEY_FILE_NAME = 'card-data.key';
const KEY_FILE_MODE = 0o600;
/** The data directory holds the store and this key: its owner alone may enter it. */
export const DATA_DIR_MODE = 0o700;

export function loadCardKey(config: Pick<Config, 'cardKeyBase64' | 'environment' | 'dataDir'>): Buffer {
  if (config.cardKeyBase64 !== null) return decodeKey(Buffer.from(config.cardKeyBase64, 'base64'), 'PAYRAIL_CARD_KEY');
  if (config.environment !== 'sandbox') throw new Error('production needs PAYRAIL_CARD_KEY (card-data encryption key)');
  const file = path.join(config.dataDir, CARD_KEY_FILE_NAME);
  const existing = readKeyFile(file);
  if (existing !== null) return existing;
  fs.mkdirSync(config.dataDir, { recursive: true, mode: DATA_DIR_MODE });
  const temporary = `${file}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`;
  try {
    const fd = fs.openSync(temporary, 'wx', KEY_FILE_MODE);
    try {
      fs.writeSync(fd, `${crypto.randomBytes(CARD_KEY_BYTES).toString('base64')}\n`);
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
  const key = readKeyFile(file);
  if (key === null) throw new Error(`card-data key file ${file} vanished while it was being created`);
  return key;
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

// One cipher and one PIN key per key source, so the key file is read once per
// process and the HTTP routes and the worker share them.
const ciphers = new Map<string, CardCipher>();
const pinKeys = new Map<string, KeyObject>();

type KeySource = Pick<Config, 'cardKeyBase64' | 'environment' | 'dataDir'>;

function cacheKeyOf(config: KeySource): string {
  return config.cardKeyBase64 !== null ? `env:${crypto.createHash('sha256').update(config.cardKeyBase64).digest('hex')}` : `dir:${config.dataDir}`;
}

export function cardCipherFor(config: KeySource): CardCipher {
  const cacheKey = cacheKeyOf(config);
  let cipher = ciphers.get(cacheKey);
  if (cipher === undefined) {
    cipher = new CardCipher(loadCardKey(config));
    ciphers.set(cacheKey, cipher);
  }
  return cipher;
}

/**
 * The HMAC key of stored PIN hashes: derived from the card-data key, so it
 * lives where that key lives (configuration or the data directory), never
 * in the database. Changing the card-data key therefore also invalidates
 * every PIN, as it makes sealed card data unreadable.
 */
export function pinKeyFor(config: KeySource): KeyObject {
  const cacheKey = cacheKeyOf(config);
  let key = pinKeys.get(cacheKey);
  if (key === undefined) {
    key = deriveSubkeyObject(loadCardKey(config), 'pinHash');
    pinKeys.set(cacheKey, key);
  }
  return key;
}
