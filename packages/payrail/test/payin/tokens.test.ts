// POST /api/v2/tokens: tokenization replies, card checks (Luhn, length per
// brand, security code, expiry), card data sealed at rest, and CORS on this
// endpoint only. On both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cardCipherFor } from '../../src/crypto/card-key.ts';
import { hashNonce } from '../../src/domain/nonce.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basicOf, shapeC, tokenizeRaw } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const BRANDS: Array<[number: string, cardType: string, cvv: string]> = [
  ['4111111111111111', 'Visa', '123'],
  ['4222222222222', 'Visa', '123'],
  ['5555555555554444', 'MasterCard', '123'],
  ['2223003122003222', 'MasterCard', '123'],
  ['378282246310005', 'American Express', '1234'],
  ['6011111111111117', 'Discover', '123'],
  ['3530111333300000', 'JCB', '123'],
  ['36227206271667', 'Diners Club', '123'],
];

const INVALID: Array<[title: string, card: Record<string, unknown>, message: string]> = [
  ['a failing check digit', { card_number: '4111111111111112' }, 'card_number fails the check digit (Luhn)'],
  ['too few digits', { card_number: '42424242424' }, 'card_number must be 12 to 19 digits'],
  ['too many digits', { card_number: '42424242424242424242' }, 'card_number must be 12 to 19 digits'],
  ['a Visa of 15 digits', { card_number: '411111111111116' }, 'card_number has a length not used by Visa cards (13, 16, 19 digits)'],
  [
    'an American Express of 16 digits',
    { card_number: '3782822463100052', cvv2: '1234' },
    'card_number has a length not used by American Express cards (15 digits)',
  ],
  ['spaces in the number', { card_number: '4111 1111 1111 1111' }, 'card_number must contain digits only'],
  // docs/api-decisions.md section 8: a number no brand issues is no card.
  ['a number of no card brand', { card_number: '7000000000000005' }, 'card_number belongs to no card brand we accept'],
  ['a 3-digit code on American Express', { card_number: '378282246310005', cvv2: '123' }, 'cvv2 must be 4 digits for American Express cards'],
  ['a 4-digit code on Visa', { cvv2: '1234' }, 'cvv2 must be 3 digits for Visa cards'],
  ['letters in the code', { cvv2: '12a' }, 'cvv2 must be 3 digits for Visa cards'],
  ['an expiry in the past', { expiry_month: 1, expiry_year: 2020 }, 'the card has expired (expiry_month/expiry_year is in the past)'],
  ['an expiry too far ahead', { expiry_year: 2099 }, 'expiry_year is more than 20 years ahead'],
];

const MALFORMED: Array<[title: string, card: Record<string, unknown>, message: string]> = [
  ['card_number as a number', { card_number: 4111111111111111 }, 'card_number must be of type string'],
  ['expiry_month as a string', { expiry_month: '12' }, 'expiry_month must be of type integer'],
  ['expiry_month 13', { expiry_month: 13 }, 'expiry_month must be <= 12'],
  ['cvv2 as a number', { cvv2: 123 }, 'cvv2 must be of type string'],
  ['an unknown field', { name: 'Ada' }, 'unknown field name'],
];

const baseCard = { card_number: '4111111111111111', expiry_month: 12, expiry_year: 2035, cvv2: '123' };

for (const kind of STORE_KINDS) {
  describe(`tokenization (${kind})`, () => {
    let t: TestApp;
    let merchant: CreatedMerchant;
    before(async () => {
      t = await createTestApp(kind);
      merchant = await t.newMerchant();
    });
    after(async () => {
      await t.close();
    });

    for (const [number, cardType, cvv] of BRANDS) {
      it(`tokenizes a card of type ${cardType}, ${number.length} digits`, async () => {
        const response = await tokenizeRaw(t.app, merchant.source.tokenization_token, { ...baseCard, card_number: number, cvv2: cvv });
        assert.equal(response.statusCode, 200, response.body);
        const body = response.json();
        assert.match(body.nonce, /^nonce-[0-9A-Za-z]{32}$/);
        assert.deepEqual(body, {
          nonce: body.nonce,
          expires_at: new Date(t.clock.nowMs() + 15 * 60_000).toISOString(),
          card_type: cardType,
          last_4: number.slice(-4),
        });
      });
    }

    for (const [title, card, message] of INVALID) {
      it(`refuses ${title}: 400 invalid_card`, async () => {
        const response = await tokenizeRaw(t.app, merchant.source.tokenization_token, { ...baseCard, ...card });
        assert.equal(response.statusCode, 400, response.body);
        assert.deepEqual(response.json(), shapeC('invalid_card', message));
      });
    }

    for (const [title, card, message] of MALFORMED) {
      it(`refuses ${title}: 400 invalid_request`, async () => {
        const response = await tokenizeRaw(t.app, merchant.source.tokenization_token, { ...baseCard, ...card });
        assert.equal(response.statusCode, 400, response.body);
        assert.deepEqual(response.json(), shapeC('invalid_request', message));
      });
    }

    it('stores only a hash of the nonce and the card sealed: number and code open only with the key, for this source', async () => {
      const response = await tokenizeRaw(t.app, merchant.source.tokenization_token, { ...baseCard, card_number: '5555555555554444' });
      const nonce = response.json().nonce as string;
      const row = await t.service.db.read((tx) =>
        tx.get<{ nonce_hash: string; card_number_enc: Buffer; cvv_enc: Buffer; bin: string; last4: string; source_id: string; expires_at_ms: number }>(
          'SELECT nonce_hash, card_number_enc, cvv_enc, bin, last4, source_id, expires_at_ms FROM nonces WHERE nonce_hash = ?',
          [hashNonce(nonce)],
        ),
      );
      assert.ok(row !== undefined);
      const stored = await t.service.db.read((tx) => tx.all<{ nonce_hash: string }>('SELECT nonce_hash FROM nonces'));
      assert.ok(stored.every((r) => !r.nonce_hash.includes(nonce.slice(6))));
      assert.equal(row.bin, '555555');
      assert.equal(row.last4, '4444');
      assert.equal(row.source_id, merchant.source.id);
      assert.equal(row.expires_at_ms, t.clock.nowMs() + 15 * 60_000);
      assert.equal(Buffer.from(row.card_number_enc).includes(Buffer.from('5555555555554444')), false);
      assert.equal(Buffer.from(row.card_number_enc).includes(Buffer.from('554444')), false);
      const cipher = cardCipherFor(t.service.config);
      // Sealed under a key derived from the nonce (docs/api-decisions.md section 8): the card-data key alone opens nothing.
      assert.equal(cipher.openForNonce(Buffer.from(row.card_number_enc), 'card_number', merchant.source.id, nonce).reveal(), '5555555555554444');
      assert.equal(cipher.openForNonce(Buffer.from(row.cvv_enc), 'cvv', merchant.source.id, nonce).reveal(), '123');
      assert.throws(() => cipher.open(Buffer.from(row.card_number_enc), 'card_number', merchant.source.id), /unknown format/);
      assert.throws(
        () => cipher.openForNonce(Buffer.from(row.card_number_enc), 'card_number', merchant.source.id, `nonce-${'A'.repeat(32)}`),
        /failed authentication/,
      );
      assert.throws(() => cipher.openForNonce(Buffer.from(row.card_number_enc), 'card_number', 'src_other', nonce), /failed authentication/);
      assert.throws(() => cipher.openForNonce(Buffer.from(row.card_number_enc), 'cvv', merchant.source.id, nonce), /failed authentication/);
    });

    it('answers the CORS preflight of /api/v2/tokens', async () => {
      const response = await t.app.inject({
        method: 'OPTIONS',
        url: '/api/v2/tokens',
        headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
      assert.equal(response.statusCode, 204);
      assert.equal(response.body, '');
      assert.equal(response.headers['access-control-allow-origin'], '*');
      assert.equal(response.headers['access-control-allow-methods'], 'POST, OPTIONS');
      assert.equal(response.headers['access-control-allow-headers'], 'Authorization, Content-Type, X-Request-Id');
      assert.equal(response.headers['access-control-max-age'], '600');
    });

    it('sends CORS headers on tokenization replies, refusals included', async () => {
      const ok = await tokenizeRaw(t.app, merchant.source.tokenization_token, baseCard);
      assert.equal(ok.headers['access-control-allow-origin'], '*');
      const refused = await t.app.inject({ method: 'POST', url: '/api/v2/tokens', headers: { origin: 'https://shop.example' }, payload: baseCard });
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.headers['access-control-allow-origin'], '*');
    });

    it('has no CORS anywhere else: the charge API answers no preflight and sends no CORS header', async () => {
      const preflight = await t.app.inject({
        method: 'OPTIONS',
        url: '/api/v2/transactions/charge',
        headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
      });
      assert.equal(preflight.statusCode, 404);
      assert.equal(preflight.headers['access-control-allow-origin'], undefined);
      const read = await t.app.inject({
        method: 'GET',
        url: '/api/v2/transactions/1',
        headers: { origin: 'https://shop.example', authorization: basicOf(merchant) },
      });
      assert.equal(read.headers['access-control-allow-origin'], undefined);
    });
  });
}
