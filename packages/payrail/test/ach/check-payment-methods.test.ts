// Saved checks (accept.blue's NewCheckPM) over HTTP, on both stores: create
// with the account type echoed exactly as sent, 409 for the same account
// twice, Vendure's way of finding a saved check again, read, change and
// delete, every bad input refused with 400 writing nothing, the account
// number in no answer and no log line, and schedules on a saved check.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { runDueSchedules, scheduleRunDepsOf } from '../../src/flows/vault/schedule-runs.ts';
import { acceptBlueMerchant, type Loose, pluginCall, pluginOk } from '../helpers/acceptblue.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { call, newCustomer, saveCardFor } from '../helpers/stored.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/** Routing numbers whose ABA check digit holds. */
const ROUTING = '021000021';
const OTHER_ROUTING = '011000015';
/** Distinctive, so a leak is found by text search. */
const ACCOUNT = '98765432104321';

const checkBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Ada Lovelace',
  routing_number: ROUTING,
  account_number: ACCOUNT,
  account_type: 'Checking',
  sec_code: 'PPD',
  ...overrides,
});

interface StoredCheck {
  method_type: string;
  card_number_enc: Buffer | Uint8Array;
  fingerprint: string | null;
  last4: string;
  card_type: string;
  bin: string;
  expiry_month: number;
  expiry_year: number;
  routing_number: string | null;
  account_type: string | null;
  sec_code: string | null;
  deleted_at_ms: number | null;
}

for (const kind of STORE_KINDS) {
  describe(`saved checks (${kind})`, () => {
    let t: TestApp;
    /** Every answer body of this suite, searched for the account number at the end. */
    const answers: string[] = [];
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    const send = async (merchant: CreatedMerchant, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) => {
      const response = await call(t, merchant, method, url, body);
      answers.push(response.body);
      return response;
    };
    const sendOk = async (merchant: CreatedMerchant, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown, status = 200) => {
      const response = await send(merchant, method, url, body);
      assert.equal(response.statusCode, status, `${method} ${url}: ${response.body}`);
      return response.body === '' ? undefined : response.json();
    };
    const storedRow = (pk: number) =>
      t.service.db.read((tx) =>
        tx.get<StoredCheck>(
          'SELECT method_type, card_number_enc, fingerprint, last4, card_type, bin, expiry_month, expiry_year, routing_number, account_type, sec_code, deleted_at_ms FROM payment_methods WHERE pk = ?',
          [pk],
        ),
      );
    const methodCount = async (merchant: CreatedMerchant) =>
      Number(
        (await t.service.db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM payment_methods WHERE merchant_id = ?', [merchant.merchant_id])))!.n,
      );

    it('saves a check: 201 with the check view, "Checking" and "checking" echoed exactly, the account sealed and only its last 4 kept', async () => {
      const merchant = await t.newMerchant();
      const customer = await newCustomer(t, merchant);
      const created = await sendOk(merchant, 'POST', `/api/v2/customers/${customer.id}/payment-methods`, checkBody(), 201);
      assert.equal(typeof created.id, 'number');
      assert.deepEqual(created, {
        id: created.id,
        customer_id: customer.id,
        created_at: new Date(t.clock.nowMs()).toISOString(),
        payment_method_type: 'check',
        name: 'Ada Lovelace',
        routing_number: ROUTING,
        account_type: 'Checking',
        sec_code: 'PPD',
        last4: '4321',
        account_number: null,
        card_type: null,
        expiry_month: null,
        expiry_year: null,
      });
      const row = (await storedRow(created.id))!;
      assert.deepEqual(
        [
          row.method_type,
          row.last4,
          row.card_type,
          row.bin,
          Number(row.expiry_month),
          Number(row.expiry_year),
          row.routing_number,
          row.account_type,
          row.sec_code,
        ],
        ['check', '4321', '', '', 0, 0, ROUTING, 'Checking', 'PPD'],
      );
      assert.ok(row.card_number_enc.length > ACCOUNT.length, 'the account number is kept sealed');
      assert.ok(!Buffer.from(row.card_number_enc).toString('latin1').includes(ACCOUNT), 'not in clear');
      assert.match(row.fingerprint ?? '', /^[0-9a-f]{64}$/);

      // Lower case, a savings account, and sec_code in lower case (kept upper case) on another account.
      const lower = await sendOk(
        merchant,
        'POST',
        `/api/v2/customers/${customer.id}/payment-methods`,
        checkBody({ account_number: '5550001', account_type: 'checking', sec_code: 'web' }),
        201,
      );
      assert.deepEqual([lower.account_type, lower.sec_code, lower.last4], ['checking', 'WEB', '0001']);
      const savings = await sendOk(
        merchant,
        'POST',
        `/api/v2/customers/${customer.id}/payment-methods`,
        checkBody({ account_number: '5550002', account_type: 'SAVINGS' }),
        201,
      );
      assert.equal(savings.account_type, 'SAVINGS');
      // Vendure's body may have no sec_code: WEB, as for a check charge.
      const noCode = await sendOk(
        merchant,
        'POST',
        `/api/v2/customers/${customer.id}/payment-methods`,
        { name: 'Ada Lovelace', routing_number: ROUTING, account_number: '5550003', account_type: 'Savings' },
        201,
      );
      assert.deepEqual([noCode.account_type, noCode.sec_code], ['Savings', 'WEB']);

      // The list shows cards and checks side by side, each in its own shape.
      const card = await saveCardFor(t, merchant, customer.id);
      const listed = await sendOk(merchant, 'GET', `/api/v2/customers/${customer.id}/payment-methods?limit=100`);
      assert.deepEqual(
        listed.map((m: Loose) => [m.id, m.payment_method_type, m.last4, m.account_type ?? null]),
        [
          [created.id, 'check', '4321', 'Checking'],
          [lower.id, 'check', '0001', 'checking'],
          [savings.id, 'check', '0002', 'SAVINGS'],
          [noCode.id, 'check', '0003', 'Savings'],
          [card.id, 'card', '1111', null],
        ],
      );
      assert.equal(listed[4].card_type, 'Visa');
      assert.equal(listed[4].routing_number, undefined, 'a card has no check members');
      const all = await sendOk(merchant, 'GET', '/api/v2/payment-methods?limit=100');
      assert.equal(all.length, 5);
      // The card paths never take a saved check for a card: no card token of it.
      const token = await send(merchant, 'POST', '/api/v2/saved-cards', { source: `pm-${created.id}` });
      assert.equal(token.statusCode, 404, token.body);
      assert.equal(Number((await t.service.db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM card_tokens')))!.n), 0);
    });

    it('refuses the same account twice for a customer with 409 naming the method (whatever the name or type); another customer or routing number is another method', async () => {
      const merchant = await t.newMerchant();
      const customer = await newCustomer(t, merchant);
      const first = await sendOk(merchant, 'POST', `/api/v2/customers/${customer.id}/payment-methods`, checkBody(), 201);
      const again = await send(
        merchant,
        'POST',
        `/api/v2/customers/${customer.id}/payment-methods`,
        checkBody({ name: 'A. Lovelace', account_type: 'savings' }),
      );
      assert.equal(again.statusCode, 409, again.body);
      assert.deepEqual(again.json(), {
        error: { code: 'duplicate_payment_method', message: `this bank account is already saved for customer ${customer.id} as payment method ${first.id}` },
        id: first.id,
      });
      assert.equal(await methodCount(merchant), 1);
      const other = await newCustomer(t, merchant, { identifier: 'Grace' });
      await sendOk(merchant, 'POST', `/api/v2/customers/${other.id}/payment-methods`, checkBody(), 201);
      await sendOk(merchant, 'POST', `/api/v2/customers/${customer.id}/payment-methods`, checkBody({ routing_number: OTHER_ROUTING }), 201);
      assert.equal(await methodCount(merchant), 3);

      // In the accept.blue dialect: accept.blue's 409 body, the existing method whole.
      const blue = await acceptBlueMerchant(t);
      const blueCustomer = await pluginOk(t, blue, 'POST', 'customers', { identifier: 'ada@example.com' });
      const saved = await pluginOk(t, blue, 'POST', `customers/${blueCustomer.id}/payment-methods`, checkBody());
      const twice = await pluginCall(t, blue, 'POST', `customers/${blueCustomer.id}/payment-methods`, checkBody());
      answers.push(twice.text);
      assert.equal(twice.status, 409, twice.text);
      assert.equal(twice.body.error_code, 'duplicate_payment_method');
      assert.deepEqual(twice.body.error_details.payment_method, saved);
      assert.equal(twice.body.error_details.payment_method.account_number, null);
    });

    it('finds a saved check again as the Vendure plugin does: list, then name, routing_number, last4 and account_type (case-sensitive)', async () => {
      const merchant = await acceptBlueMerchant(t);
      const customer = await pluginOk(t, merchant, 'POST', 'customers', { identifier: 'ada@example.com', customer_number: 'ada@example.com' });
      const input = { name: 'Ada Lovelace', routing_number: ROUTING, account_number: ACCOUNT, account_type: 'Checking' };
      // The plugin's isSameCheck.
      const isSameCheck = (m: Loose) =>
        m.payment_method_type === 'check' &&
        m.name === input.name &&
        m.routing_number === input.routing_number &&
        input.account_number.endsWith(m.last4) &&
        m.account_type === input.account_type;
      const none = await pluginOk(t, merchant, 'GET', `customers/${customer.id}/payment-methods?limit=100`, undefined, [200]);
      assert.deepEqual(none, []);
      const created = await pluginOk(t, merchant, 'POST', `customers/${customer.id}/payment-methods`, input, [201]);
      answers.push(JSON.stringify(created));
      // What the plugin reads of the answer, and what its GraphQL type requires present.
      assert.deepEqual([typeof created.id, created.payment_method_type, created.customer_id, created.card_type], ['number', 'check', customer.id, null]);
      for (const field of ['id', 'created_at', 'expiry_month', 'expiry_year']) assert.ok(field in created, `payment method ${field} present`);
      const listed = await pluginOk(t, merchant, 'GET', `customers/${customer.id}/payment-methods?limit=100`, undefined, [200]);
      answers.push(JSON.stringify(listed));
      assert.deepEqual(
        listed.filter(isSameCheck).map((m: Loose) => m.id),
        [created.id],
      );
      // "checking" is another account type to the plugin: a server that lowercased would make it create (and be refused 409).
      assert.equal(listed.filter((m: Loose) => isSameCheck({ ...m, account_type: m.account_type.toLowerCase() })).length, 0);
      const read = await pluginOk(t, merchant, 'GET', `payment-methods/${created.id}`, undefined, [200]);
      assert.deepEqual(read, created);
      // The plugin's allow-list: a check is allowed by its type alone.
      assert.ok(read.payment_method_type === 'check' || ['Visa', 'MasterCard', 'Amex', 'Discover'].includes(read.card_type));
    });

    it('reads, changes (name, routing_number, account_type, sec_code) and deletes a saved check as cards are', async () => {
      const merchant = await t.newMerchant();
      const customer = await newCustomer(t, merchant);
      const created = await sendOk(merchant, 'POST', `/api/v2/customers/${customer.id}/payment-methods`, checkBody(), 201);
      const other = await sendOk(merchant, 'POST', `/api/v2/customers/${customer.id}/payment-methods`, checkBody({ routing_number: OTHER_ROUTING }), 201);
      assert.deepEqual(await sendOk(merchant, 'GET', `/api/v2/payment-methods/${created.id}`), created);

      const changed = await sendOk(merchant, 'PATCH', `/api/v2/payment-methods/${created.id}`, {
        name: 'Augusta Ada King',
        account_type: 'Savings',
        sec_code: 'ccd',
      });
      assert.deepEqual(changed, { ...created, name: 'Augusta Ada King', account_type: 'Savings', sec_code: 'CCD' });
      assert.deepEqual(await sendOk(merchant, 'GET', `/api/v2/payment-methods/${created.id}`), changed);

      // A routing number that makes it the other method's account: 409, nothing changed.
      const clash = await send(merchant, 'PATCH', `/api/v2/payment-methods/${created.id}`, { routing_number: OTHER_ROUTING, name: 'Clash' });
      assert.equal(clash.statusCode, 409, clash.body);
      assert.equal(clash.json().id, other.id);
      assert.deepEqual(await sendOk(merchant, 'GET', `/api/v2/payment-methods/${created.id}`), changed);
      // Another routing number moves the fingerprint: the old account may then be saved again, the new one not.
      const fingerprintBefore = (await storedRow(created.id))!.fingerprint;
      const moved = await sendOk(merchant, 'PATCH', `/api/v2/payment-methods/${created.id}`, { routing_number: '121000358' });
      assert.equal(moved.routing_number, '121000358');
      assert.notEqual((await storedRow(created.id))!.fingerprint, fingerprintBefore);
      const dup = await send(merchant, 'POST', `/api/v2/customers/${customer.id}/payment-methods`, checkBody({ routing_number: '121000358' }));
      assert.equal(dup.statusCode, 409, dup.body);
      assert.equal(dup.json().id, created.id);

      // Card fields on a check, check fields on a card: refused naming them.
      const card = await saveCardFor(t, merchant, customer.id);
      for (const [id, body, field] of [
        [created.id, { expiry_month: 12, expiry_year: 2035 }, 'expiry_month'],
        [created.id, { avs_zip: '10001' }, 'avs_zip'],
        [card.id, { routing_number: ROUTING }, 'routing_number'],
        [card.id, { sec_code: 'WEB' }, 'sec_code'],
      ] as const) {
        const refused = await send(merchant, 'PATCH', `/api/v2/payment-methods/${id}`, body);
        assert.equal(refused.statusCode, 400, refused.body);
        assert.match(refused.json().error.message, new RegExp(field));
      }
      // The card's own change is as before.
      const cardChanged = await sendOk(merchant, 'PATCH', `/api/v2/payment-methods/${card.id}`, { name: 'Card holder' });
      assert.deepEqual([cardChanged.payment_method_type, cardChanged.name, cardChanged.expiry_month], ['card', 'Card holder', 12]);

      await sendOk(merchant, 'DELETE', `/api/v2/payment-methods/${created.id}`, undefined, 204);
      const gone = await send(merchant, 'GET', `/api/v2/payment-methods/${created.id}`);
      assert.equal(gone.statusCode, 404, gone.body);
      const erased = (await storedRow(created.id))!;
      assert.deepEqual([erased.card_number_enc.length, erased.fingerprint, erased.deleted_at_ms !== null], [0, null, true]);
      // Deleted, the account may be saved again.
      await sendOk(merchant, 'POST', `/api/v2/customers/${customer.id}/payment-methods`, checkBody({ routing_number: '121000358' }), 201);
    });

    it('refuses every bad check with 400 naming the field, writing nothing', async () => {
      const merchant = await t.newMerchant();
      const customer = await newCustomer(t, merchant);
      const url = `/api/v2/customers/${customer.id}/payment-methods`;
      const cases: Array<[string, Record<string, unknown>, string, string]> = [
        ['bad check digit', checkBody({ routing_number: '021000022' }), 'routing_number', 'routing_number fails the ABA check digit'],
        ['8-digit routing number', checkBody({ routing_number: '02100002' }), 'routing_number', 'routing_number must be exactly 9 digits'],
        ['3-digit account', checkBody({ account_number: '123' }), 'account_number', 'account_number must be 4 to 17 digits'],
        ['18-digit account', checkBody({ account_number: '123456789012345678' }), 'account_number', 'account_number must be 4 to 17 digits'],
        ['letters in the account', checkBody({ account_number: '12345abc' }), 'account_number', 'account_number must be digits only'],
        ['unknown sec_code', checkBody({ sec_code: 'XYZ' }), 'sec_code', 'sec_code must be PPD, CCD, TEL or WEB'],
        ['unknown account type', checkBody({ account_type: 'business' }), 'account_type', 'account_type must be checking or savings (any case)'],
        ['no name', checkBody({ name: undefined }), 'name', 'name is required for a check payment method'],
        ['no account number', checkBody({ account_number: undefined }), 'account_number', 'account_number is required for a check payment method'],
        ['no routing number', checkBody({ routing_number: undefined }), 'routing_number', 'routing_number is required for a check payment method'],
        ['no account type', checkBody({ account_type: undefined }), 'account_type', 'account_type is required for a check payment method'],
        ['an expiry', checkBody({ expiry_month: 12, expiry_year: 2035 }), 'expiry_month', 'expiry_month does not apply to a check payment method'],
        [
          'a card source beside',
          checkBody({ source: 'nonce-abc' }),
          'routing_number',
          'routing_number belongs to a check payment method, which takes no source',
        ],
      ];
      for (const [what, body, field, message] of cases) {
        const refused = await send(merchant, 'POST', url, body);
        assert.equal(refused.statusCode, 400, `${what}: ${refused.body}`);
        // The spec dialect names the field in the message; the accept.blue dialect in error_details (below).
        assert.deepEqual(refused.json().error, { code: 'invalid_request', message }, what);
        assert.ok(message.startsWith(field), what);
      }
      assert.equal(await methodCount(merchant), 0, 'nothing saved');

      // In the accept.blue dialect: its envelope, naming the field.
      const blue = await acceptBlueMerchant(t);
      const blueCustomer = await pluginOk(t, blue, 'POST', 'customers', { identifier: 'ada@example.com' });
      const refused = await pluginCall(t, blue, 'POST', `customers/${blueCustomer.id}/payment-methods`, checkBody({ routing_number: '021000022' }));
      answers.push(refused.text);
      assert.equal(refused.status, 400, refused.text);
      assert.deepEqual(
        [refused.body.error_message, refused.body.error_details],
        ['routing_number fails the ABA check digit', { routing_number: ['routing_number fails the ABA check digit'] }],
      );
      assert.equal(await methodCount(blue), 0);

      // account_number on PATCH: refused in both dialects (the accept.blue dialect does not drop it), nothing changed.
      const created = await sendOk(merchant, 'POST', url, checkBody(), 201);
      const patch = await send(merchant, 'PATCH', `/api/v2/payment-methods/${created.id}`, { account_number: '11112222', name: 'Changed' });
      assert.equal(patch.statusCode, 400, patch.body);
      assert.deepEqual(patch.json().error, { code: 'invalid_request', message: 'account_number cannot be changed; save a new payment method' });
      const blueMethod = await pluginOk(t, blue, 'POST', `customers/${blueCustomer.id}/payment-methods`, checkBody());
      const bluePatch = await pluginCall(t, blue, 'PATCH', `payment-methods/${blueMethod.id}`, { account_number: '11112222' });
      assert.equal(bluePatch.status, 400, bluePatch.text);
      for (const [id, m] of [
        [created.id, merchant],
        [blueMethod.id, blue],
      ] as const) {
        const row = (await storedRow(id))!;
        assert.deepEqual([row.last4, row.routing_number], ['4321', ROUTING]);
        assert.equal((await call(t, m, 'GET', `/api/v2/payment-methods/${id}`)).json().name, 'Ada Lovelace');
      }
      const badPatches: Array<[Record<string, unknown>, string]> = [
        [{ routing_number: '021000022' }, 'routing_number fails the ABA check digit'],
        [{ sec_code: 'ABC' }, 'sec_code must be PPD, CCD, TEL or WEB'],
        [{ account_type: 'loan' }, 'account_type must be checking or savings (any case)'],
        [{ name: '' }, 'name must not be empty for a check payment method'],
      ];
      for (const [body, message] of badPatches) {
        const bad = await send(merchant, 'PATCH', `/api/v2/payment-methods/${created.id}`, body);
        assert.equal(bad.statusCode, 400, bad.body);
        assert.equal(bad.json().error.message, message);
      }
      assert.deepEqual(await sendOk(merchant, 'GET', `/api/v2/payment-methods/${created.id}`), created);
    });

    it('creates, changes and lists schedules on a saved check; a run is a check charge of the account, once per run date', async () => {
      const merchant = await t.newMerchant();
      const customer = await newCustomer(t, merchant);
      const check = await sendOk(merchant, 'POST', `/api/v2/customers/${customer.id}/payment-methods`, checkBody(), 201);
      const card = await saveCardFor(t, merchant, customer.id);
      const tomorrow = new Date(t.clock.nowMs() + 86_400_000).toISOString().slice(0, 10);
      const schedule = await sendOk(
        merchant,
        'POST',
        `/api/v2/customers/${customer.id}/recurring-schedules`,
        { title: 'Monthly dues', amount: 25, frequency: 'monthly', next_run_date: tomorrow, num_left: 3, payment_method_id: check.id },
        201,
      );
      assert.deepEqual([schedule.payment_method_id, schedule.amount, schedule.status, schedule.active], [check.id, 25, 'active', true]);
      const byMethod = await sendOk(merchant, 'GET', `/api/v2/payment-methods/${check.id}/recurring-schedules`);
      assert.deepEqual(
        byMethod.map((s: Loose) => s.id),
        [schedule.id],
      );
      // Moved to the card and back.
      assert.equal((await sendOk(merchant, 'PATCH', `/api/v2/recurring-schedules/${schedule.id}`, { payment_method_id: card.id })).payment_method_id, card.id);
      assert.equal(
        (await sendOk(merchant, 'PATCH', `/api/v2/recurring-schedules/${schedule.id}`, { payment_method_id: check.id })).payment_method_id,
        check.id,
      );
      assert.deepEqual(await sendOk(merchant, 'GET', `/api/v2/recurring-schedules/${schedule.id}/transactions`), []);

      // Its run date comes: a check charge of the schedule's amount, once, and the schedule moves on.
      t.clock.advance(86_400_000 + 60_000);
      await runDueSchedules(scheduleRunDepsOf(t.service));
      await runDueSchedules(scheduleRunDepsOf(t.service));
      const charges = await t.service.db.read((tx) =>
        tx.all<{ pk: number; payment_type: string; schedule_pk: number; amount_cents: number; status: string; last4: string; card_type: string }>(
          'SELECT pk, payment_type, schedule_pk, amount_cents, status, last4, card_type FROM charges WHERE merchant_id = ?',
          [merchant.merchant_id],
        ),
      );
      assert.deepEqual(
        charges.map((c) => [c.payment_type, Number(c.schedule_pk), Number(c.amount_cents), c.status, c.last4, c.card_type]),
        [['check', schedule.id, 2500, 'approved', '4321', '']],
      );
      const later = await sendOk(merchant, 'GET', `/api/v2/recurring-schedules/${schedule.id}`);
      assert.deepEqual([later.status, later.active, later.num_left], ['active', true, 2]);
      assert.notEqual(later.next_run_date, tomorrow);
      const runs = await sendOk(merchant, 'GET', `/api/v2/recurring-schedules/${schedule.id}/transactions`);
      assert.equal(runs.length, 1, JSON.stringify(runs));
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);

      // accept.blue refuses deleting a method an active schedule charges: so does its dialect, for a check too.
      const blue = await acceptBlueMerchant(t);
      const blueCustomer = await pluginOk(t, blue, 'POST', 'customers', { identifier: 'ada@example.com' });
      const blueCheck = await pluginOk(t, blue, 'POST', `customers/${blueCustomer.id}/payment-methods`, checkBody());
      await pluginOk(t, blue, 'POST', `customers/${blueCustomer.id}/recurring-schedules`, {
        title: 'Box',
        active: true,
        amount: 19.99,
        frequency: 'monthly',
        num_left: 0,
        payment_method_id: blueCheck.id,
      });
      const refused = await pluginCall(t, blue, 'DELETE', `payment-methods/${blueCheck.id}`);
      assert.equal(refused.status, 409, refused.text);
      // Run now in the sandbox: the run's transaction as the Vendure plugin reads a schedule's transactions.
      const blueSchedules = await pluginOk(t, blue, 'GET', `customers/${blueCustomer.id}/recurring-schedules`, undefined, [200]);
      const run = await t.app.inject({ method: 'POST', url: `/sandbox/schedules/${blueSchedules[0].id}/run`, headers: { 'api-key': blue.transfer_api_key } });
      assert.equal(run.statusCode, 200, run.body);
      answers.push(run.body);
      const blueRuns = await pluginOk(t, blue, 'GET', `recurring-schedules/${blueSchedules[0].id}/transactions`, undefined, [200]);
      answers.push(JSON.stringify(blueRuns));
      assert.equal(blueRuns.length, 1, JSON.stringify(blueRuns));
      assert.equal(blueRuns[0].amount_details.amount, 19.99);
      assert.equal(blueRuns[0].status_details.status, 'pending');
      assert.deepEqual(
        [blueRuns[0].check_details.name, blueRuns[0].check_details.account_number_last4, blueRuns[0].check_details.routing_number],
        ['Ada Lovelace', '4321', ROUTING],
      );
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });

    it('never shows nor logs the account number', () => {
      assert.ok(answers.length > 30, `${answers.length} answers searched`);
      for (const body of answers) assert.ok(!body.includes(ACCOUNT), `an answer shows the account number: ${body.slice(0, 200)}`);
      assert.ok(t.logLines.length > 0);
      for (const line of t.logLines) assert.ok(!line.includes(ACCOUNT), `a log line shows the account number: ${line.slice(0, 200)}`);
    });
  });
}
