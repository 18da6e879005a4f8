// Card data never reaches a log, an error or a reply, and is stored only
// sealed (behaviour.md s.8). Runs a full payin flow (every test card,
// refusals, replays, the worker, an unreachable processor), captures every
// log line and every stored row, and looks for card numbers and security
// codes in them. Both stores.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifyLedger } from '../src/flows/ledger-verify.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { unreachableFor } from './helpers/flaky-card-processor.ts';
import { basicOf, chargeBody, EXPIRY_MONTH, EXPIRY_YEAR, postCharge, tokenizeRaw } from './helpers/payin.ts';
import { STORE_KINDS } from './helpers/stores.ts';

const FLAKY_PROCESSOR = path.join(import.meta.dirname, 'helpers', 'flaky-card-processor.ts');

const CARDS = [
  '4111111111111111',
  '5555555555554444',
  '378282246310005',
  '6011111111111117',
  '4000000000000002',
  '4000000000009995',
  '4000000000000069',
  '4000000000000101',
  '4000000000000036',
  '4000000000000259',
  '4000000000000119',
  '4242424242424242',
];
/** Security codes used in the flow: distinctive, so finding one cannot be a coincidence of a JSON value. */
const CVV3 = '739';
const CVV4 = '8264';
const cvvOf = (card: string) => (card.startsWith('37') ? CVV4 : CVV3);

/** Every string and number inside a parsed log line. */
function leaves(value: unknown, out: Array<string | number> = []): Array<string | number> {
  if (typeof value === 'string' || typeof value === 'number') out.push(value);
  else if (Array.isArray(value)) for (const item of value) leaves(item, out);
  else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) leaves(item, leaves(key, out));
  return out;
}

for (const kind of STORE_KINDS) {
  describe(`no card data in logs, replies or storage (${kind})`, () => {
    let t: TestApp;
    const replies: string[] = [];
    before(async () => {
      t = await createTestApp(kind, { env: { PAYRAIL_CARD_PROCESSOR: FLAKY_PROCESSOR } });
      const merchant = await t.newMerchant();
      const token = merchant.source.tokenization_token;
      // Refused tokenizations: a bad check digit, a bad code, an expired card.
      for (const bad of [
        { card_number: '4111111111111112', expiry_month: EXPIRY_MONTH, expiry_year: EXPIRY_YEAR, cvv2: CVV3 },
        { card_number: '4111111111111111', expiry_month: EXPIRY_MONTH, expiry_year: EXPIRY_YEAR, cvv2: CVV4 },
        { card_number: '4111111111111111', expiry_month: 1, expiry_year: 2020, cvv2: CVV3 },
        { card_number: 4111111111111111, expiry_month: EXPIRY_MONTH, expiry_year: EXPIRY_YEAR, cvv2: CVV3 },
      ]) {
        const refused = await tokenizeRaw(t.app, token, bad);
        assert.equal(refused.statusCode, 400);
        replies.push(refused.body);
      }
      unreachableFor.set('6011111111111117', 1);
      for (const [index, card] of CARDS.entries()) {
        const tokenized = await tokenizeRaw(t.app, token, { card_number: card, expiry_month: EXPIRY_MONTH, expiry_year: EXPIRY_YEAR, cvv2: cvvOf(card) });
        assert.equal(tokenized.statusCode, 200, tokenized.body);
        replies.push(tokenized.body);
        const body = chargeBody(tokenized.json().nonce, { amount: 15 });
        const charged = await postCharge(t.app, basicOf(merchant), body, { 'idempotency-key': `flow-${index}` });
        assert.equal(charged.statusCode, 200, charged.body);
        const replay = await postCharge(t.app, basicOf(merchant), body, { 'idempotency-key': `flow-${index}` });
        const reused = await postCharge(t.app, basicOf(merchant), body);
        assert.equal(reused.statusCode, 400);
        replies.push(charged.body, replay.body, reused.body);
      }
      // A malformed body around a card number must not echo it.
      const broken = await postCharge(t.app, basicOf(merchant), `{"amount": 5, "source": "4111111111111111", "cvv2": "${CVV3}"`);
      replies.push(broken.body);
      // Past the recovery delay of the unanswered charge, within the nonces' life.
      t.clock.advance(61_000);
      await t.worker.drain();
      for (const line of t.logLines) replies.push(line);
    });
    after(async () => {
      await t.close();
    });

    it('wrote log lines for the whole flow, including the worker and the unreachable processor', () => {
      assert.ok(t.logLines.length >= CARDS.length * 4);
      assert.ok(t.logLines.some((line) => line.includes('card processor did not answer')));
      assert.ok(t.logLines.some((line) => line.includes('pending charge resolved')));
    });

    it('no log line contains a card number or its middle digits', () => {
      const all = t.logLines.join('');
      for (const card of [...CARDS, '4111111111111112']) assert.equal(all.includes(card), false, `card ${card.slice(-4)} in logs`);
      // Middle digits of the cards whose digits cannot occur by chance in ids and times.
      for (const card of ['5555555555554444', '378282246310005', '6011111111111117', '4242424242424242']) {
        assert.equal(all.includes(card.slice(4, 12)), false, `middle digits of ${card.slice(-4)} in logs`);
      }
    });

    it('no log line carries a security code or card fields', () => {
      for (const line of t.logLines) {
        const values = leaves(JSON.parse(line));
        for (const value of values) {
          assert.notEqual(String(value), CVV3);
          assert.notEqual(String(value), CVV4);
          assert.equal(['card_number', 'cvv2', 'cvv'].includes(String(value)), false, line);
        }
      }
    });

    it('no reply contains a card number beyond its last four digits and BIN, nor a security code field', () => {
      for (const reply of replies) {
        for (const card of CARDS) assert.equal(reply.includes(card), false);
        assert.equal(reply.includes(CVV4), false);
        assert.equal(reply.includes(`"${CVV3}"`), false);
      }
    });

    it('no stored row holds a card number or security code in the clear', async () => {
      const tables = ['nonces', 'charges', 'idempotency_keys', 'postings', 'accounts'];
      for (const table of tables) {
        const rows = await t.service.db.read((tx) => tx.all<Record<string, unknown>>(`SELECT * FROM ${table}`));
        assert.ok(rows.length > 0, table);
        for (const row of rows) {
          for (const value of Object.values(row)) {
            const bytes = Buffer.isBuffer(value) ? value : Buffer.from(String(value));
            for (const card of CARDS) assert.equal(bytes.includes(Buffer.from(card)), false, `${table} holds ${card.slice(-4)}`);
            assert.equal(bytes.includes(Buffer.from(CVV4)), false, `${table} holds a security code`);
          }
        }
      }
      const codes = await t.service.db.read((tx) => tx.all<{ n: number }>('SELECT COUNT(*) AS n FROM nonces WHERE used_at_ms IS NOT NULL AND cvv_enc IS NOT NULL'));
      assert.equal(Number(codes[0]!.n), 0);
    });

    it('leaves a ledger that verifies', async () => {
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });
  });
}
