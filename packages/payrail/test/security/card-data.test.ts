// Erased card data stays erased (issue 13 finding 2, docs/api-decisions.md
// section 8). A nonce's card data is sealed under a key derived from the
// nonce, which is never stored, so what its row leaves behind in old pages,
// the write-ahead log or row versions opens for nobody, the holder of the
// card-data key included; SQLite zeroes freed space and the worker empties
// the log. The attack: read the raw store (the SQLite file AND its -wal, or
// every stored value on PostgreSQL, whose files are the server's), look for
// the test cards in the clear, and try the card-data key on every sealed
// value there could be.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CardCipher } from '../../src/crypto/card-cipher.ts';
import { loadCardKey } from '../../src/crypto/card-key.ts';
import { Secret } from '../../src/domain/secret.ts';
import { scrubErasedCardData } from '../../src/flows/payin/card-data-scrub.ts';
import { REFERENCE_CARD_RETENTION_MS } from '../../src/flows/payin/cleanup.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { SQLITE_FILE_NAME } from '../../src/store/open.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basicOf, chargeBody, postCharge, tokenizeRaw } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const AMEX = { number: '378282246310005', cvv: '8604' };
const PENDING = { number: '4000000000000259', cvv: '731' };
const UNUSED = { number: '6011000990139424', cvv: '552' };
const CARDS = [AMEX, PENDING, UNUSED];

/** version (1) | IV (12) | tag (16) | ciphertext, as src/crypto/card-cipher.ts lays sealed values out. */
const IV_BYTES = 12;
const HEADER_BYTES = 1 + IV_BYTES + 16;

/**
 * Every card number or security code of `cards` that the card-data key opens
 * from some sealed value in `bytes`, at any offset: the attacker's search,
 * needing no knowledge of the file's layout. Any version byte is tried.
 */
function openableWithCardKey(bytes: Buffer, key: Buffer, sourceId: string): string[] {
  const found = new Set<string>();
  const wanted = [
    { field: 'card_number', lengths: [...new Set(CARDS.map((c) => c.number.length))] },
    { field: 'cvv', lengths: [...new Set(CARDS.map((c) => c.cvv.length))] },
  ];
  for (let at = 0; at + HEADER_BYTES < bytes.length; at++) {
    if (bytes[at] !== 1 && bytes[at] !== 2) continue;
    const iv = bytes.subarray(at + 1, at + 1 + IV_BYTES);
    const tag = bytes.subarray(at + 1 + IV_BYTES, at + HEADER_BYTES);
    for (const { field, lengths } of wanted) {
      for (const length of lengths) {
        if (at + HEADER_BYTES + length > bytes.length) continue;
        const decipher = crypto.createDecipheriv('aes-256-gcm', key, iv);
        decipher.setAAD(Buffer.from(`payrail:${field}:${sourceId}`, 'utf8'));
        decipher.setAuthTag(tag);
        try {
          found.add(Buffer.concat([decipher.update(bytes.subarray(at + HEADER_BYTES, at + HEADER_BYTES + length)), decipher.final()]).toString('utf8'));
        } catch {
          // Not a value sealed under this key: what the attacker hopes not to see.
        }
      }
    }
  }
  return [...found];
}

/** Card data of `cards` in the clear: whole numbers, and security codes standing alone (not inside a longer run of letters or digits). */
function inTheClear(bytes: Buffer): string[] {
  const text = bytes.toString('latin1');
  const found: string[] = [];
  for (const card of CARDS) {
    if (text.includes(card.number)) found.push(card.number);
    if (new RegExp(`(^|[^0-9A-Za-z])${card.cvv}([^0-9A-Za-z]|$)`).test(text)) found.push(card.cvv);
  }
  return found;
}

async function tokenize(t: TestApp, merchant: CreatedMerchant, card: { number: string; cvv: string }): Promise<string> {
  const response = await tokenizeRaw(t.app, merchant.source.tokenization_token, {
    card_number: card.number,
    expiry_month: 12,
    expiry_year: 2035,
    cvv2: card.cvv,
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().nonce as string;
}

/** What an attacker reads: the raw files on SQLite; on PostgreSQL (whose files belong to its server) every stored value. */
async function rawStore(t: TestApp): Promise<Buffer> {
  if (t.store.kind === 'sqlite') {
    const file = path.join(t.store.dataDir, SQLITE_FILE_NAME);
    return Buffer.concat([file, `${file}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f)));
  }
  const tables = await t.service.db.read((tx) =>
    tx.all<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"),
  );
  const values: Buffer[] = [];
  for (const { table_name } of tables) {
    const rows = await t.service.db.read((tx) => tx.all<Record<string, unknown>>(`SELECT * FROM ${table_name}`));
    for (const row of rows) for (const value of Object.values(row)) values.push(Buffer.isBuffer(value) ? value : Buffer.from(String(value), 'utf8'));
  }
  return Buffer.concat(values);
}

for (const kind of STORE_KINDS) {
  describe(`card data after use (${kind})`, () => {
    let t: TestApp;
    let merchant: CreatedMerchant;
    let key: Buffer;
    before(async () => {
      t = await createTestApp(kind);
      merchant = await t.newMerchant();
      key = loadCardKey(t.service.config);
    });
    after(async () => {
      await t.close();
    });

    it('the search finds card data the card-data key can open (the control)', () => {
      const sealed = new CardCipher(key).seal(new Secret(AMEX.number), 'card_number', merchant.source.id);
      const haystack = Buffer.concat([crypto.randomBytes(300), sealed, crypto.randomBytes(300)]);
      assert.deepEqual(openableWithCardKey(haystack, key, merchant.source.id), [AMEX.number]);
      assert.deepEqual(inTheClear(Buffer.from(`x"cvv2":"${AMEX.cvv}"`)), [AMEX.cvv]);
    });

    it('finds neither card numbers nor security codes once the cards are used, or left unused', async () => {
      const approved = await postCharge(t.app, basicOf(merchant), chargeBody(await tokenize(t, merchant, AMEX)));
      assert.equal(approved.json().status, 'Approved', approved.body);
      // A charge under review keeps a copy of its number (sealed under the card-data key) until it is final...
      const pending = await postCharge(t.app, basicOf(merchant), chargeBody(await tokenize(t, merchant, PENDING)));
      assert.equal(pending.json().status, 'Pending', pending.body);
      await tokenize(t, merchant, UNUSED);
      // (On SQLite the write-ahead log still holds the approved charge's copy too, erased since.)
      assert.ok(openableWithCardKey(await rawStore(t), key, merchant.source.id).includes(PENDING.number), 'the search works on the real store');

      // ...and erases it once final. An approved charge keeps its card sealed
      // for `ref-` charges (docs/api-decisions.md section 15), and nothing else,
      // until its retention ends; the worker then erases it and scrubs the store.
      t.clock.advance(60_000);
      await t.worker.drain();
      assert.deepEqual(openableWithCardKey(await rawStore(t), key, merchant.source.id).sort(), [AMEX.number, PENDING.number].sort());
      assert.deepEqual(inTheClear(await rawStore(t)), []);
      t.clock.advance(REFERENCE_CARD_RETENTION_MS);
      await t.worker.drain();
      const raw = await rawStore(t);
      assert.ok(raw.length > 0);
      assert.deepEqual(inTheClear(raw), []);
      assert.deepEqual(openableWithCardKey(raw, key, merchant.source.id), []);
      if (kind === 'sqlite') {
        // What the worker's scrub does (every SCRUB_INTERVAL_MS): the log is emptied, old page images and all.
        assert.equal(await scrubErasedCardData(t.service), true);
        assert.equal(fs.statSync(`${path.join(t.store.dataDir, SQLITE_FILE_NAME)}-wal`).size, 0);
      }
    });

    it('a saved card is kept sealed, never its security code; deleting the method leaves nothing to open', async () => {
      const saved = { number: '5105105105105100', cvv: '417' };
      const customer = await t.app.inject({
        method: 'POST',
        url: '/api/v2/customers',
        headers: { authorization: basicOf(merchant), 'content-type': 'application/json' },
        payload: JSON.stringify({ identifier: 'Card holder' }),
      });
      const customerId = customer.json().id as number;
      const nonce = await tokenize(t, merchant, saved);
      const method = await t.app.inject({
        method: 'POST',
        url: `/api/v2/customers/${customerId}/payment-methods`,
        headers: { authorization: basicOf(merchant), 'content-type': 'application/json' },
        payload: JSON.stringify({ source: nonce, expiry_month: 12, expiry_year: 2035 }),
      });
      assert.equal(method.statusCode, 201, method.body);
      const stored = await rawStore(t);
      assert.ok(openableWithCardKey(stored, key, merchant.source.id).includes(saved.number), 'the saved card is there, sealed');
      assert.ok(!stored.toString('latin1').includes(saved.number), 'never in the clear');
      const deleted = await t.app.inject({
        method: 'DELETE',
        url: `/api/v2/payment-methods/${method.json().id}`,
        headers: { authorization: basicOf(merchant) },
      });
      assert.equal(deleted.statusCode, 204);
      if (kind === 'sqlite') assert.equal(await scrubErasedCardData(t.service), true);
      const raw = await rawStore(t);
      assert.ok(!openableWithCardKey(raw, key, merchant.source.id).includes(saved.number));
      assert.ok(!raw.toString('latin1').includes(saved.number));
      assert.ok(!new RegExp(`(^|[^0-9A-Za-z])${saved.cvv}([^0-9A-Za-z]|$)`).test(raw.toString('latin1')));
    });
  });
}

for (const kind of STORE_KINDS) {
  describe(`short card numbers (${kind})`, () => {
    let t: TestApp;
    let merchant: CreatedMerchant;
    before(async () => {
      t = await createTestApp(kind);
      merchant = await t.newMerchant();
    });
    after(async () => {
      await t.close();
    });

    // Of a 15-digit number, its first 6 and last 4 leave 5 digits, one of them the Luhn check digit: 10^4 guesses.
    it('keeps and shows only the last 4 digits of a number shorter than 16 (issue 13 finding 4)', async () => {
      const charge = await postCharge(t.app, basicOf(merchant), chargeBody(await tokenize(t, merchant, AMEX)));
      assert.equal(charge.statusCode, 200, charge.body);
      assert.equal(charge.json().last_4, '0005');
      assert.equal(charge.json().transaction.card_details.bin, '');
      const rows = await t.service.db.read((tx) => tx.all<{ bin: string }>('SELECT bin FROM charges UNION ALL SELECT bin FROM nonces'));
      assert.deepEqual([...new Set(rows.map((r) => r.bin))], ['']);
    });

    it('refuses a number that no card brand issues', async () => {
      const response = await tokenizeRaw(t.app, merchant.source.tokenization_token, {
        card_number: '7000000000000005',
        expiry_month: 12,
        expiry_year: 2035,
        cvv2: '123',
      });
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), { error: { code: 'invalid_card', message: 'card_number belongs to no card brand we accept' } });
    });
  });
}
