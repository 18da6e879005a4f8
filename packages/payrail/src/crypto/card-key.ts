// Where the card-data key comes from. Configuration (PAYRAIL_CARD_KEY) wins;
// production refuses to start without it (src/config.ts). A sandbox without
// one generates a key on first use and keeps it in the data directory, so
// card data sealed by one run opens in the next and in the worker process.
//
// The file is created atomically: the key is written to a private temporary
// file which is then hard-linked to its final name. link(2) fails if the
// name exists, so when two processes start together exactly one key wins and
// both read it back; no process ever sees a half-written file.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { CARD_KEY_BYTES, CardCipher } from './card-cipher.ts';

export const CARD_KEY_FILE_NAME = 'card-data.key';
const KEY_FILE_MODE = 0o600;

export function loadCardKey(config: Pick<Config, 'cardKeyBase64' | 'environment' | 'dataDir'>): Buffer {
  if (config.cardKeyBase64 !== null) return decodeKey(Buffer.from(config.cardKeyBase64, 'base64'), 'PAYRAIL_CARD_KEY');
  if (config.environment !== 'sandbox') throw new Error('production needs PAYRAIL_CARD_KEY (card-data encryption key)');
  const file = path.join(config.dataDir, CARD_KEY_FILE_NAME);
  const existing = readKeyFile(file);
  if (existing !== null) return existing;
  fs.mkdirSync(config.dataDir, { recursive: true });
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

// One cipher per key source, so the key file is read once per process and
// the HTTP routes and the worker share it.
const ciphers = new Map<string, CardCipher>();

export function cardCipherFor(config: Pick<Config, 'cardKeyBase64' | 'environment' | 'dataDir'>): CardCipher {
  const cacheKey = config.cardKeyBase64 !== null ? `env:${crypto.createHash('sha256').update(config.cardKeyBase64).digest('hex')}` : `dir:${config.dataDir}`;
  let cipher = ciphers.get(cacheKey);
  if (cipher === undefined) {
    cipher = new CardCipher(loadCardKey(config));
    ciphers.set(cacheKey, cipher);
  }
  return cipher;
}
