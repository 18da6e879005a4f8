// Configuration and files (issue 13 findings 8 and 9): connectors load only
// from file paths or package names, never a URL that carries or fetches code;
// production refuses a card-data key that is not random and a public URL
// that is not https; the data directory is private (0700) and the store and
// key files 0600; a PIN is kept as an HMAC under a key outside the database,
// so the database alone does not give PINs.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { CARD_KEY_FILE_NAME, loadCardKey, pinKeyFor } from '../../src/crypto/card-key.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { createLogger } from '../../src/log.ts';
import { createMerchant, issuingDeps } from '../../src/flows/merchants/merchants.ts';
import { loadProvider } from '../../src/providers/index.ts';
import { openMigratedDb, SQLITE_FILE_NAME } from '../../src/store/open.ts';
import { tempDir } from '../helpers/stores.ts';

const PRODUCTION = {
  PAYRAIL_ENV: 'production',
  PAYRAIL_TRUST_PROXY_TLS: '1',
  PAYRAIL_PUBLIC_URL: 'https://pay.example.com',
  PAYRAIL_CARD_PROCESSOR: './connectors/card.js',
  PAYRAIL_PAYOUT_NETWORK: './connectors/payout.js',
  PAYRAIL_KYC_PROVIDER: '@acme/payrail-kyc',
  PAYRAIL_FX_PROVIDER: 'payrail-fx-acme/connector.js',
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe('connector modules', () => {
  it('are refused when named by a URL or scheme, at start', () => {
    for (const spec of [
      'data:text/javascript,export function create(){ globalThis.pwned = true }',
      'https://evil.example/x.js',
      'file:///tmp/x.js',
      'node:fs',
    ]) {
      const problems = problemsOf({ PAYRAIL_FX_PROVIDER: spec });
      assert.equal(problems.length, 1, spec);
      assert.match(problems[0]!, /^PAYRAIL_FX_PROVIDER must be an absolute path, a \.\/relative path or an installed package name/);
    }
    assert.deepEqual(problemsOf({ PAYRAIL_FX_PROVIDER: '/opt/connectors/fx.js', PAYRAIL_KYC_PROVIDER: '../kyc.js', PAYRAIL_CARD_PROCESSOR: '@acme/card' }), []);
  });

  it('are refused by the loader too, so configuration text never runs as code', async () => {
    const context = { environment: 'sandbox' as const, publicUrl: 'http://x', sandboxDelayMs: 0, clock: new ManualClock(), log: createLogger('silent') };
    await assert.rejects(
      loadProvider('data:text/javascript,globalThis.pwned=true;export function create(){return {}}', context, () => ({})),
      /refused: it must be an absolute path/,
    );
    assert.equal((globalThis as { pwned?: boolean }).pwned, undefined);
  });
});

describe('production start checks', () => {
  const randomKey = crypto.randomBytes(32).toString('base64');

  it('accepts a random card-data key and an https public URL', () => {
    assert.deepEqual(problemsOf({ ...PRODUCTION, PAYRAIL_CARD_KEY: randomKey }), []);
  });

  it('finding 16: refuses to start without a key provider; accepts Vault transit in place of PAYRAIL_CARD_KEY, over https only', () => {
    assert.ok(problemsOf(PRODUCTION).some((problem) => problem.startsWith('production needs a key provider: PAYRAIL_CARD_KEY')));
    const vault = { ...PRODUCTION, PAYRAIL_KEY_PROVIDER: 'vault', PAYRAIL_VAULT_ADDR: 'https://vault.internal:8200', PAYRAIL_VAULT_TOKEN: 'hvs.example' };
    assert.deepEqual(problemsOf(vault), []);
    assert.deepEqual(problemsOf({ ...vault, PAYRAIL_VAULT_ADDR: 'http://vault.internal:8200' }), ['production needs PAYRAIL_VAULT_ADDR to be an https:// URL']);
    assert.ok(problemsOf({ ...vault, PAYRAIL_VAULT_TOKEN: '' }).some((problem) => problem.includes('PAYRAIL_VAULT_TOKEN')));
    assert.deepEqual(problemsOf({ ...PRODUCTION, PAYRAIL_CARD_KEY: randomKey, PAYRAIL_KEY_PROVIDER: 'kms' }), [
      'PAYRAIL_KEY_PROVIDER must be local or vault, got "kms"',
    ]);
  });

  it('refuses a card-data key that is not random', () => {
    const weak: Array<[string, Buffer]> = [
      ['all zeros', Buffer.alloc(32)],
      ['one repeated byte', Buffer.alloc(32, 7)],
      ['a counter', Buffer.from(Array.from({ length: 32 }, (_, i) => i))],
      ['a passphrase', Buffer.from('correct horse battery staple 123', 'utf8')],
    ];
    for (const [what, key] of weak) {
      const problems = problemsOf({ ...PRODUCTION, PAYRAIL_CARD_KEY: key.toString('base64') });
      assert.equal(problems.length, 1, what);
      assert.match(problems[0]!, /^PAYRAIL_CARD_KEY does not look random/, what);
    }
  });

  it('refuses a public URL that is not https', () => {
    for (const url of ['http://pay.example.com', undefined]) {
      const env: Record<string, string> = { ...PRODUCTION, PAYRAIL_CARD_KEY: randomKey };
      if (url === undefined) delete env.PAYRAIL_PUBLIC_URL;
      else env.PAYRAIL_PUBLIC_URL = url;
      assert.deepEqual(problemsOf(env), ['production needs PAYRAIL_PUBLIC_URL, an https:// URL (links handed to receivers must not travel in the clear)']);
    }
  });

  it('serves /docs by default in the sandbox only', () => {
    assert.equal(loadConfig({}).docs, true);
    assert.equal(loadConfig({ PAYRAIL_DOCS: '0' }).docs, false);
    assert.equal(loadConfig({ ...PRODUCTION, PAYRAIL_CARD_KEY: randomKey }).docs, false);
    assert.equal(loadConfig({ ...PRODUCTION, PAYRAIL_CARD_KEY: randomKey, PAYRAIL_DOCS: '1' }).docs, true);
  });
});

describe('files of the embedded store', () => {
  const root = tempDir();
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

  it('creates the data directory 0700 and the database, its log, its index and the key file 0600', async () => {
    const dataDir = path.join(root, 'fresh', 'data');
    const db = await openMigratedDb({ databaseUrl: null, dataDir, pgPoolSize: 2 });
    try {
      const cardKeyFile = path.join(root, 'fresh', 'keys', 'card.key');
      loadCardKey({ cardKeyBase64: null, environment: 'sandbox', dataDir, cardKeyFile });
      const file = path.join(dataDir, SQLITE_FILE_NAME);
      assert.equal(modeOf(dataDir), 0o700);
      assert.equal(modeOf(path.dirname(cardKeyFile)), 0o700);
      for (const name of [file, `${file}-wal`, `${file}-shm`, cardKeyFile]) assert.equal(modeOf(name), 0o600, name);
      assert.equal(fs.existsSync(path.join(dataDir, CARD_KEY_FILE_NAME)), false);
    } finally {
      await db.close();
    }
  });

  it('makes the files of an existing store private when it opens them', async () => {
    const dataDir = path.join(root, 'old');
    fs.mkdirSync(dataDir, { recursive: true });
    const file = path.join(dataDir, SQLITE_FILE_NAME);
    await (await openMigratedDb({ databaseUrl: null, dataDir, pgPoolSize: 2 })).close();
    fs.chmodSync(file, 0o644);
    const db = await openMigratedDb({ databaseUrl: null, dataDir, pgPoolSize: 2 });
    try {
      assert.equal(modeOf(file), 0o600);
    } finally {
      await db.close();
    }
  });
});

describe('PIN hashes', () => {
  const dataDir = tempDir();
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('are HMACs under a key kept outside the database: the old unkeyed hash of id:PIN is not what is stored', async () => {
    const db = await openMigratedDb({ databaseUrl: null, dataDir, pgPoolSize: 2 });
    try {
      const config = loadConfig({ PAYRAIL_DATA_DIR: dataDir, PAYRAIL_CARD_KEY_FILE: path.join(dataDir, '..', 'pin-test.key') });
      const deps = issuingDeps({ db, config, clock: new ManualClock() });
      const merchant = await createMerchant(deps, { name: 'PIN test' });
      const id = merchant.source.api_key.split('_')[2]!;
      const row = await db.read((tx) => tx.get<{ pin_hash: string }>('SELECT pin_hash FROM credentials WHERE id = ?', [id]));
      const unkeyed = crypto.createHash('sha256').update(`${id}:${merchant.source.pin}`).digest('hex');
      assert.ok(!row!.pin_hash.includes(unkeyed), 'an attacker with the database cannot test PINs against it');
      const keyed = crypto.createHmac('sha256', pinKeyFor(config).newestPinKey().key).update(`${id}:${merchant.source.pin}`).digest('hex');
      assert.equal(row!.pin_hash, `hmac256$${keyed}`);
    } finally {
      await db.close();
    }
  });
});
