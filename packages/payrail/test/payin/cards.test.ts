// Pure card rules and card-data protection, no store: Luhn, brand and
// length, security code, expiry against an injected time, the Secret box,
// AES-256-GCM sealing, the sandbox key file, and the raw JSON amount reader.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import util from 'node:util';
import { describe, it } from 'node:test';
import { CardCipher } from '../../src/crypto/card-cipher.ts';
import { loadConfig } from '../../src/config.ts';
import { CARD_KEY_FILE_NAME, defaultCardKeyFile, loadCardKey } from '../../src/crypto/card-key.ts';
import { cardTypeOf, checkCardNumber, checkCvv, checkExpiry, luhnValid } from '../../src/domain/cards.ts';
import { Secret } from '../../src/domain/secret.ts';
import { rawMemberText } from '../../src/http/raw-json.ts';
import { tempDir } from '../helpers/stores.ts';

describe('card numbers', () => {
  it('computes the Luhn check digit', () => {
    for (const valid of ['4111111111111111', '378282246310005', '6011111111111117', '79927398713', '0']) assert.equal(luhnValid(valid), true, valid);
    for (const invalid of ['4111111111111112', '79927398710', '', '41111a1111111111']) assert.equal(luhnValid(invalid), false, invalid);
  });

  it('knows the brand from the BIN', () => {
    const cases: Array<[string, string]> = [
      ['4111111111111111', 'Visa'],
      ['5105105105105100', 'MasterCard'],
      ['2221000000000009', 'MasterCard'],
      ['2720999999999996', 'MasterCard'],
      ['2721000000000004', 'Unknown'],
      ['340000000000009', 'American Express'],
      ['378282246310005', 'American Express'],
      ['6011000990139424', 'Discover'],
      ['6445644564456445', 'Discover'],
      ['6500000000000002', 'Discover'],
      ['3528000000000007', 'JCB'],
      ['30569309025904', 'Diners Club'],
      ['9999999999999995', 'Unknown'],
    ];
    for (const [number, type] of cases) assert.equal(cardTypeOf(number), type, number);
  });

  it('reports facts and problems without repeating the number', () => {
    // Below 16 digits the first 6 and last 4 would leave too few unknown: only the last 4 are kept (docs/api-decisions.md section 8).
    assert.deepEqual(checkCardNumber('378282246310005'), { ok: true, facts: { cardType: 'American Express', last4: '0005', bin: '', cvvLength: 4 } });
    assert.deepEqual(checkCardNumber('4111111111111111'), { ok: true, facts: { cardType: 'Visa', last4: '1111', bin: '411111', cvvLength: 3 } });
    assert.deepEqual(checkCardNumber('9999999999999995'), { ok: false, reason: 'card_number belongs to no card brand we accept' });
    const problems = ['4111', '4111111111111112', '411111111111116', '41111111111111111111', '4111-1111-1111-1111'].map((n) => checkCardNumber(n));
    for (const problem of problems) {
      assert.equal(problem.ok, false);
      if (!problem.ok) assert.doesNotMatch(problem.reason, /[0-9]{5,}/);
    }
  });

  it('wants 4 digits of security code on American Express, 3 elsewhere', () => {
    const amex = checkCardNumber('378282246310005');
    const visa = checkCardNumber('4111111111111111');
    assert.ok(amex.ok && visa.ok);
    assert.equal(checkCvv('1234', amex.facts), null);
    assert.equal(checkCvv('123', amex.facts), 'cvv2 must be 4 digits for American Express cards');
    assert.equal(checkCvv('123', visa.facts), null);
    assert.equal(checkCvv('12 3', visa.facts), 'cvv2 must be 3 digits for Visa cards');
  });

  it('accepts a card through the end of its expiry month (UTC)', () => {
    const lastMomentOfMarch = Date.UTC(2027, 2, 31, 23, 59, 59, 999);
    const firstMomentOfApril = Date.UTC(2027, 3, 1);
    assert.equal(checkExpiry(3, 2027, lastMomentOfMarch), null);
    assert.equal(checkExpiry(3, 2027, firstMomentOfApril), 'the card has expired (expiry_month/expiry_year is in the past)');
    assert.equal(checkExpiry(12, 2026, firstMomentOfApril), 'the card has expired (expiry_month/expiry_year is in the past)');
    assert.equal(checkExpiry(1, 2047, firstMomentOfApril), null);
    assert.equal(checkExpiry(1, 2048, firstMomentOfApril), 'expiry_year is more than 20 years ahead');
    assert.equal(checkExpiry(0, 2030, firstMomentOfApril), 'expiry_month must be from 1 to 12');
    assert.equal(checkExpiry(5, 30, firstMomentOfApril), 'expiry_year must have four digits');
  });
});

describe('Secret', () => {
  it('never shows its value by accident', () => {
    const secret = new Secret('4111111111111111');
    assert.equal(JSON.stringify({ card: secret }), '{"card":"[redacted]"}');
    assert.equal(`${secret}`, '[redacted]');
    assert.equal(String(secret), '[redacted]');
    assert.equal(util.inspect({ secret }), '{ secret: Secret([redacted]) }');
    assert.equal(util.format('%o %s %j', secret, secret, secret).includes('4111'), false);
    assert.equal(secret.reveal(), '4111111111111111');
  });
});

describe('card cipher', () => {
  const key = Buffer.alloc(32, 7);
  const cipher = new CardCipher(key);

  it('seals with a fresh IV each time and opens only for the same field and source', () => {
    const a = cipher.seal(new Secret('4111111111111111'), 'card_number', 'src_a');
    const b = cipher.seal(new Secret('4111111111111111'), 'card_number', 'src_a');
    assert.notDeepEqual(a, b);
    assert.equal(a.includes(Buffer.from('4111111111111111')), false);
    assert.equal(cipher.open(a, 'card_number', 'src_a').reveal(), '4111111111111111');
    assert.throws(() => cipher.open(a, 'card_number', 'src_b'), /card_number failed authentication/);
    assert.throws(() => cipher.open(a, 'cvv', 'src_a'), /cvv failed authentication/);
  });

  it('detects tampering and a wrong key', () => {
    const sealed = cipher.seal(new Secret('123'), 'cvv', 'src_a');
    const flipped = Buffer.from(sealed);
    flipped[flipped.length - 1]! ^= 1;
    assert.throws(() => cipher.open(flipped, 'cvv', 'src_a'), /failed authentication/);
    assert.throws(() => new CardCipher(Buffer.alloc(32, 8)).open(sealed, 'cvv', 'src_a'), /failed authentication/);
    assert.throws(() => cipher.open(Buffer.from([9, 1, 2]), 'cvv', 'src_a'), /unknown format/);
    assert.throws(() => new CardCipher(Buffer.alloc(16)), /must be 32 bytes/);
  });

  it('prints no key material', () => {
    assert.equal(JSON.stringify({ cipher }), '{"cipher":"CardCipher"}');
    assert.equal(util.inspect(cipher).includes('7, 7'), false);
  });
});

describe('card-data key', () => {
  it('uses the configured key, refusing a bad one', () => {
    const configured = Buffer.alloc(32, 3).toString('base64');
    assert.deepEqual(loadCardKey({ cardKeyBase64: configured, environment: 'production', dataDir: '/nonexistent' }), Buffer.alloc(32, 3));
    assert.throws(
      () => loadCardKey({ cardKeyBase64: Buffer.alloc(8).toString('base64'), environment: 'sandbox', dataDir: '/nonexistent' }),
      /exactly 32 bytes/,
    );
    assert.throws(() => loadCardKey({ cardKeyBase64: null, environment: 'production', dataDir: '/nonexistent' }), /production needs PAYRAIL_CARD_KEY/);
  });

  it('generates a sandbox key once, readable by its owner only, and keeps it outside the data directory', () => {
    const dataDir = tempDir();
    const keyDir = tempDir();
    const cardKeyFile = path.join(keyDir, 'keys', 'sandbox.key');
    try {
      const first = loadCardKey({ cardKeyBase64: null, environment: 'sandbox', dataDir, cardKeyFile });
      assert.equal(fs.statSync(cardKeyFile).mode & 0o777, 0o600);
      assert.equal(fs.statSync(path.dirname(cardKeyFile)).mode & 0o777, 0o700);
      assert.equal(first.length, 32);
      assert.deepEqual(loadCardKey({ cardKeyBase64: null, environment: 'sandbox', dataDir, cardKeyFile }), first);
      assert.deepEqual(fs.readdirSync(dataDir), []);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
      fs.rmSync(keyDir, { recursive: true, force: true });
    }
  });

  it('finding 4: the default sandbox key file is under the configuration directory, named per data directory, not beside the database', () => {
    const dataDir = tempDir();
    const configHome = tempDir();
    try {
      const file = defaultCardKeyFile(dataDir, { XDG_CONFIG_HOME: configHome });
      assert.ok(file.startsWith(path.join(configHome, 'payrail', 'card-keys') + path.sep), file);
      assert.notEqual(defaultCardKeyFile(tempDir(), { XDG_CONFIG_HOME: configHome }), file);
      const config = loadConfig({ PAYRAIL_DATA_DIR: dataDir, XDG_CONFIG_HOME: configHome });
      assert.equal(config.cardKeyFile, null);
      const previous = process.env.XDG_CONFIG_HOME;
      process.env.XDG_CONFIG_HOME = configHome;
      try {
        loadCardKey(config);
      } finally {
        if (previous === undefined) delete process.env.XDG_CONFIG_HOME;
        else process.env.XDG_CONFIG_HOME = previous;
      }
      assert.ok(fs.existsSync(file));
      assert.deepEqual(fs.readdirSync(dataDir), [], 'no key file in the data directory');
      assert.equal(loadConfig({ PAYRAIL_DATA_DIR: dataDir, PAYRAIL_CARD_KEY_FILE: '/somewhere/else.key' }).cardKeyFile, '/somewhere/else.key');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
      fs.rmSync(configHome, { recursive: true, force: true });
    }
  });

  it('finding 4: a key file an older version left in the data directory is moved out, and its key still opens its data', () => {
    const dataDir = tempDir();
    const keyDir = tempDir();
    const cardKeyFile = path.join(keyDir, 'moved.key');
    try {
      const old = crypto.randomBytes(32);
      fs.writeFileSync(path.join(dataDir, CARD_KEY_FILE_NAME), `${old.toString('base64')}\n`, { mode: 0o600 });
      const sealed = new CardCipher(old).seal(new Secret('4111111111111111'), 'card_number', 'src_a');
      const key = loadCardKey({ cardKeyBase64: null, environment: 'sandbox', dataDir, cardKeyFile });
      assert.deepEqual(key, old);
      assert.deepEqual(fs.readdirSync(dataDir), []);
      assert.equal(fs.statSync(cardKeyFile).mode & 0o777, 0o600);
      assert.equal(
        new CardCipher(loadCardKey({ cardKeyBase64: null, environment: 'sandbox', dataDir, cardKeyFile })).open(sealed, 'card_number', 'src_a').reveal(),
        '4111111111111111',
      );
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
      fs.rmSync(keyDir, { recursive: true, force: true });
    }
  });

  it('gives processes starting together one and the same key', async () => {
    const dataDir = tempDir();
    const cardKeyFile = path.join(tempDir(), 'together.key');
    const script = `import { loadCardKey } from ${JSON.stringify(path.resolve(import.meta.dirname, '../../src/crypto/card-key.ts'))};
      process.stdout.write(loadCardKey({ cardKeyBase64: null, environment: 'sandbox', dataDir: ${JSON.stringify(dataDir)}, cardKeyFile: ${JSON.stringify(cardKeyFile)} }).toString('hex'));`;
    try {
      const run = () =>
        new Promise<string>((resolve, reject) => {
          const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
          let out = '';
          child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
          child.on('error', reject);
          child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`key loader exited ${code}`))));
        });
      const keys = await Promise.all([run(), run(), run(), run()]);
      assert.equal(new Set(keys).size, 1);
      assert.equal(keys[0]!.length, 64);
      assert.deepEqual(fs.readdirSync(path.dirname(cardKeyFile)), [path.basename(cardKeyFile)]);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('raw JSON amount', () => {
  it('returns the text of a top-level member as written', () => {
    assert.equal(rawMemberText('{"amount":1e2}', 'amount'), '1e2');
    assert.equal(rawMemberText('{ "amount" : 10.000 , "x": 1}', 'amount'), '10.000');
    assert.equal(rawMemberText('{"a":{"amount":1},"amount":-0.5}', 'amount'), '-0.5');
    assert.equal(rawMemberText('{"a":"\\"amount\\": 9","b":[1,{"amount":2}],"amount":3}', 'amount'), '3');
    assert.equal(rawMemberText('{"amount":1,"amount":2.50}', 'amount'), '2.50');
    assert.equal(rawMemberText('{"amount":"5"}', 'amount'), '"5"');
    assert.equal(rawMemberText('{"other":1}', 'amount'), null);
    assert.equal(rawMemberText('[1]', 'amount'), null);
    assert.equal(rawMemberText('{"\\u0061mount":7}', 'amount'), '7');
  });
});
