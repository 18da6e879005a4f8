// Card data never reaches a log, an error or a reply, and is stored only
// sealed (docs/api-decisions.md section 8). Runs a full payin flow (every test card,
// refusals, replays, the worker, an unreachable processor), captures every
// log line and every stored row, and looks for card numbers and security
// codes in them. Both stores.
//
// Card numbers are searched as substrings: 15 or 16 given digits never occur
// by chance. Security codes are not: 3 or 4 given digits occur by chance
// inside hashes, ids, timestamps and sealed bytes (a SHA-256 in hex holds 4
// given digits about once in a thousand), so a substring search would fail
// at random. A leaked code is a value of its own (a log field, a reply
// member, a column, a member of stored JSON), so codes are compared with
// whole values, decoded: every leaf of a JSON text, every column.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { unreachableFor } from '../helpers/flaky-card-processor.ts';
import { basicOf, chargeBody, EXPIRY_MONTH, EXPIRY_YEAR, postCharge, tokenizeRaw } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const FLAKY_PROCESSOR = path.join(import.meta.dirname, '..', 'helpers', 'flaky-card-processor.ts');

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

/** Every key and every string and number inside a parsed JSON value. */
function leaves(value: unknown, out: Array<string | number> = []): Array<string | number> {
  if (typeof value === 'string' || typeof value === 'number') out.push(value);
  else if (Array.isArray(value)) for (const item of value) leaves(item, out);
  else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) leaves(item, leaves(key, out));
  return out;
}

/** Whether a whole value (never a part of one) is one of the security codes used in the flow. */
function isSecurityCode(value: string | number): boolean {
  const text = String(value).trim();
  return text === CVV3 || text === CVV4;
}

/** What a stored column holds, decoded: the value itself (bytes as text) and, for JSON text, every leaf inside it. */
function decodedValues(value: unknown): Array<string | number> {
  if (value === null || value === undefined) return [];
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return [Buffer.from(value).toString('utf8')];
  if (typeof value === 'number' || typeof value === 'bigint') return [String(value)];
  const text = String(value);
  if (!/^\s*[[{]/.test(text)) return [text];
  try {
    return [text, ...leaves(JSON.parse(text))];
  } catch {
    return [text];
  }
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
        // A replay answers at once with the first reply, even for the charge the processor did not answer.
        assert.equal(replay.statusCode, 200, replay.body);
        assert.equal(replay.body, charged.body);
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
          assert.equal(isSecurityCode(value), false, line);
          assert.equal(['card_number', 'cvv2', 'cvv'].includes(String(value)), false, line);
        }
      }
    });

    it('no reply contains a card number beyond its last four digits and BIN, nor a security code', () => {
      assert.ok(replies.length > CARDS.length * 4);
      for (const reply of replies) {
        for (const card of CARDS) assert.equal(reply.includes(card), false, reply);
        // Every reply (and log line) is JSON: each of its keys and values is compared whole.
        for (const value of leaves(JSON.parse(reply))) assert.equal(isSecurityCode(value), false, reply);
      }
    });

    it('no stored row holds a card number or security code in the clear', async () => {
      const tables = ['nonces', 'charges', 'idempotency_keys', 'postings', 'accounts'];
      for (const table of tables) {
        const rows = await t.service.db.read((tx) => tx.all<Record<string, unknown>>(`SELECT * FROM ${table}`));
        assert.ok(rows.length > 0, table);
        for (const row of rows) {
          for (const [column, value] of Object.entries(row)) {
            const bytes = Buffer.isBuffer(value) ? value : Buffer.from(String(value));
            for (const card of CARDS) assert.equal(bytes.includes(Buffer.from(card)), false, `${table}.${column} holds ${card.slice(-4)}`);
            for (const decoded of decodedValues(value)) assert.equal(isSecurityCode(decoded), false, `${table}.${column} holds a security code`);
          }
        }
      }
      const codes = await t.service.db.read((tx) =>
        tx.all<{ n: number }>('SELECT COUNT(*) AS n FROM nonces WHERE used_at_ms IS NOT NULL AND cvv_enc IS NOT NULL'),
      );
      assert.equal(Number(codes[0]!.n), 0);
    });

    it('leaves a ledger that verifies', async () => {
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });
  });
}
