// Stored customers and saved cards over HTTP (docs/api-decisions.md section
// 15), on both stores: every endpoint, charges with `pm-` and `ref-` sources
// through the charge machinery (shapes, idempotency, capture and refund),
// and every refusal changing nothing; the ledger verifies after each.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PAYMENT_METHODS_PER_CUSTOMER_MAX } from '../../src/flows/vault/customers.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { availableCents, closeSandboxBatch, operateOk } from '../helpers/lifecycle.ts';
import { basicOf, chargeBody, EXPIRY_MONTH, EXPIRY_YEAR, nonceFor, postCharge, shapeC } from '../helpers/payin.ts';
import { call, callOk, newCustomer, saveCardFor } from '../helpers/stored.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/** The n-th Visa test number of 16 digits that passes Luhn. */
function visaNumber(n: number): string {
  const body = `4000${String(n).padStart(11, '0')}`;
  for (let check = 0; check <= 9; check++) {
    const digits = `${body}${check}`;
    let sum = 0;
    for (let i = 0; i < digits.length; i++) {
      let d = Number(digits[digits.length - 1 - i]);
      if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
      sum += d;
    }
    if (sum % 10 === 0) return digits;
  }
  throw new Error('unreachable');
}

async function ledgerClean(t: TestApp): Promise<void> {
  assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
}

for (const kind of STORE_KINDS) {
  describe(`stored customers and saved cards (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it('creates a customer, saves a card and creates a schedule once per Idempotency-Key: a retry replays, another body is refused', async () => {
      const merchant = await t.newMerchant();
      const post = (url: string, body: unknown, key: string) =>
        t.app.inject({
          method: 'POST',
          url,
          headers: { authorization: basicOf(merchant), 'content-type': 'application/json', 'idempotency-key': key },
          payload: JSON.stringify(body),
        });
      const count = async (table: string) =>
        Number((await t.service.db.read((tx) => tx.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE merchant_id = ?`, [merchant.merchant_id])))!.n);

      const customerBody = { identifier: 'Ada', customer_number: 'c-1' };
      const first = await post('/api/v2/customers', customerBody, 'cust-1');
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      const again = await post('/api/v2/customers', customerBody, 'cust-1');
      assert.equal(again.statusCode, 201, again.body);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.json(), first.json());
      assert.equal(await count('customers'), 1);
      // Sent at once: one creates, the other replays it.
      const together = await Promise.all([1, 2, 3].map(() => post('/api/v2/customers', { identifier: 'Lin' }, 'cust-2')));
      assert.deepEqual(
        together.map((r) => r.statusCode),
        [201, 201, 201],
      );
      assert.equal(new Set(together.map((r) => r.json().id)).size, 1);
      assert.equal(together.filter((r) => r.headers['idempotent-replayed'] === 'true').length, 2);
      assert.equal(await count('customers'), 2);
      const other = await post('/api/v2/customers', { identifier: 'Grace' }, 'cust-1');
      assert.deepEqual([other.statusCode, other.json().error.code], [400, 'idempotency_key_reused']);
      assert.equal(await count('customers'), 2);
      const badKey = await post('/api/v2/customers', customerBody, 'no spaces allowed');
      assert.deepEqual([badKey.statusCode, badKey.json().error.code], [400, 'invalid_request']);
      assert.equal(await count('customers'), 2);

      // A save retried after a lost answer: the nonce is used once, the retry gets the same card.
      const customerId = first.json().id as number;
      const source = await nonceFor(t.app, merchant);
      const cardBody = { source, expiry_month: EXPIRY_MONTH, expiry_year: EXPIRY_YEAR };
      const saved = await post(`/api/v2/customers/${customerId}/payment-methods`, cardBody, 'card-1');
      assert.equal(saved.statusCode, 201, saved.body);
      const savedAgain = await post(`/api/v2/customers/${customerId}/payment-methods`, cardBody, 'card-1');
      assert.deepEqual([savedAgain.statusCode, savedAgain.headers['idempotent-replayed']], [201, 'true']);
      assert.deepEqual(savedAgain.json(), saved.json());
      assert.equal(await count('payment_methods'), 1);
      // Without the key, the retry finds the nonce used.
      const noKey = await call(t, merchant, 'POST', `/api/v2/customers/${customerId}/payment-methods`, cardBody);
      assert.equal(noKey.statusCode, 400, noKey.body);

      const scheduleBody = { title: 'Box', amount: 12.5, frequency: 'monthly', next_run_date: '2031-01-01', payment_method_id: saved.json().id };
      const scheduled = await post(`/api/v2/customers/${customerId}/recurring-schedules`, scheduleBody, 'sched-1');
      assert.equal(scheduled.statusCode, 201, scheduled.body);
      // The fields in another order are the same request (docs/api-decisions.md section 8).
      const reordered = Object.fromEntries(Object.entries(scheduleBody).reverse());
      const scheduledAgain = await post(`/api/v2/customers/${customerId}/recurring-schedules`, reordered, 'sched-1');
      assert.deepEqual([scheduledAgain.statusCode, scheduledAgain.headers['idempotent-replayed']], [201, 'true']);
      assert.deepEqual(scheduledAgain.json(), scheduled.json());
      assert.equal(await count('recurring_schedules'), 1);
      // A key names one operation: the customer's key cannot create a schedule.
      const crossed = await post(`/api/v2/customers/${customerId}/recurring-schedules`, scheduleBody, 'cust-1');
      assert.deepEqual([crossed.statusCode, crossed.json().error.code], [400, 'idempotency_key_reused']);
    });

    it('creates, reads, lists with filters, updates and deletes customers', async () => {
      const merchant = await t.newMerchant();
      const created = await newCustomer(t, merchant, { customer_number: 'C-1', email: 'ada@example.com', phone: '+15550100' });
      assert.deepEqual(Object.keys(created).sort(), [
        'active',
        'created_at',
        'customer_number',
        'email',
        'first_name',
        'id',
        'identifier',
        'last_name',
        'phone',
      ]);
      assert.equal(created.identifier, 'Ada Lovelace');
      assert.equal(created.customer_number, 'C-1');
      assert.equal(created.active, true);
      assert.equal(created.created_at, new Date(t.clock.nowMs()).toISOString());
      const second = await newCustomer(t, merchant, { identifier: 'Grace', customer_number: 'C-2', active: false });
      assert.equal(second.active, false);
      assert.equal(second.email, null);

      assert.deepEqual(await callOk(t, merchant, 'GET', `/api/v2/customers/${created.id}`), created);
      assert.deepEqual(await callOk(t, merchant, 'GET', '/api/v2/customers'), [created, second]);
      assert.deepEqual(await callOk(t, merchant, 'GET', '/api/v2/customers?active=true&customer_number=C-1'), [created]);
      assert.deepEqual(await callOk(t, merchant, 'GET', '/api/v2/customers?active=true&customer_number=C-2'), []);
      assert.deepEqual(await callOk(t, merchant, 'GET', '/api/v2/customers?active=false'), [second]);
      assert.deepEqual(await callOk(t, merchant, 'GET', '/api/v2/customers?limit=1&offset=1'), [second]);

      const updated = await callOk(t, merchant, 'PATCH', `/api/v2/customers/${created.id}`, { email: 'ada@lovelace.example', active: false });
      assert.deepEqual(updated, { ...created, email: 'ada@lovelace.example', active: false });
      assert.equal(await callOk(t, merchant, 'DELETE', `/api/v2/customers/${second.id}`, undefined, 204), undefined);
      const gone = await call(t, merchant, 'GET', `/api/v2/customers/${second.id}`);
      assert.equal(gone.statusCode, 404);
      assert.deepEqual(gone.json(), shapeC('not_found', `customer ${second.id} not found`));
      assert.deepEqual(await callOk(t, merchant, 'GET', '/api/v2/customers'), [updated]);
      await ledgerClean(t);
    });

    it("refuses unknown and another merchant's customers (404) and bad input (400 naming the field), changing nothing", async () => {
      const merchant = await t.newMerchant();
      const other = await t.newMerchant();
      const theirs = await newCustomer(t, other);
      for (const [method, url, body] of [
        ['GET', `/api/v2/customers/${theirs.id}`, undefined],
        ['PATCH', `/api/v2/customers/${theirs.id}`, { email: 'x@example.com' }],
        ['DELETE', `/api/v2/customers/${theirs.id}`, undefined],
        ['GET', `/api/v2/customers/${theirs.id}/transactions`, undefined],
        ['GET', `/api/v2/customers/${theirs.id}/payment-methods`, undefined],
        ['GET', '/api/v2/customers/999999999', undefined],
        ['GET', '/api/v2/customers/abc', undefined],
      ] as const) {
        const response = await call(t, merchant, method, url, body);
        assert.equal(response.statusCode, 404, `${method} ${url}: ${response.body}`);
        assert.equal(response.json().error.code, 'not_found');
      }
      assert.deepEqual(await callOk(t, other, 'GET', `/api/v2/customers/${theirs.id}`), theirs);
      const cases: Array<[unknown, string]> = [
        [{}, 'identifier is required'],
        [{ identifier: '' }, 'identifier must NOT have fewer than 1 characters'],
        [{ identifier: 'x', active: 'yes' }, 'active must be of type boolean'],
        [{ identifier: 'x', nickname: 'y' }, 'unknown field nickname'],
      ];
      for (const [body, message] of cases) {
        const response = await call(t, merchant, 'POST', '/api/v2/customers', body);
        assert.equal(response.statusCode, 400, response.body);
        assert.deepEqual(response.json(), shapeC('invalid_request', message));
      }
      const badFilter = await call(t, merchant, 'GET', '/api/v2/customers?active=maybe');
      assert.deepEqual([badFilter.statusCode, badFilter.json()], [400, shapeC('invalid_request', 'active must be true or false')]);
      const badLimit = await call(t, merchant, 'GET', '/api/v2/customers?limit=101');
      assert.deepEqual([badLimit.statusCode, badLimit.json()], [400, shapeC('invalid_request', 'limit must be an integer from 1 to 100')]);
      assert.deepEqual(await callOk(t, merchant, 'GET', '/api/v2/customers'), []);
      const unauthenticated = await t.app.inject({ method: 'GET', url: '/api/v2/customers' });
      assert.equal(unauthenticated.statusCode, 401);
      await ledgerClean(t);
    });

    it('saves a card from a nonce, lists, reads, renames and re-dates it; the same card again is 409 naming the method', async () => {
      const merchant = await t.newMerchant();
      const customer = await newCustomer(t, merchant);
      const method = await saveCardFor(t, merchant, customer.id, '4111111111111111', { name: 'Ada L' });
      assert.deepEqual(method, {
        id: method.id,
        customer_id: customer.id,
        payment_method_type: 'card',
        card_type: 'Visa',
        last4: '1111',
        expiry_month: EXPIRY_MONTH,
        expiry_year: EXPIRY_YEAR,
        name: 'Ada L',
        created_at: new Date(t.clock.nowMs()).toISOString(),
      });
      const master = await saveCardFor(t, merchant, customer.id, '5555555555554444');
      assert.equal(master.name, null);
      assert.deepEqual(await callOk(t, merchant, 'GET', `/api/v2/customers/${customer.id}/payment-methods`), [method, master]);
      assert.deepEqual(await callOk(t, merchant, 'GET', `/api/v2/customers/${customer.id}/payment-methods?limit=1&offset=1`), [master]);
      assert.deepEqual(await callOk(t, merchant, 'GET', `/api/v2/payment-methods/${method.id}`), method);

      // The same card for the same customer: 409 with the existing id, and the nonce is not used up.
      const nonce = await nonceFor(t.app, merchant, '4111111111111111');
      const duplicate = await call(t, merchant, 'POST', `/api/v2/customers/${customer.id}/payment-methods`, {
        source: nonce,
        expiry_month: EXPIRY_MONTH,
        expiry_year: EXPIRY_YEAR,
      });
      assert.equal(duplicate.statusCode, 409, duplicate.body);
      assert.deepEqual(duplicate.json(), {
        error: { code: 'duplicate_payment_method', message: `this card is already saved for customer ${customer.id} as payment method ${method.id}` },
        id: method.id,
      });
      const charged = await postCharge(t.app, basicOf(merchant), chargeBody(nonce, { amount: 5 }));
      assert.equal(charged.json().status, 'Approved', charged.body);
      // Another customer may save the same card.
      const other = await newCustomer(t, merchant, { identifier: 'Other' });
      await saveCardFor(t, merchant, other.id, '4111111111111111');

      const renamed = await callOk(t, merchant, 'PATCH', `/api/v2/payment-methods/${method.id}`, { name: 'Main card', expiry_month: 1, expiry_year: 2036 });
      assert.deepEqual(renamed, { ...method, name: 'Main card', expiry_month: 1, expiry_year: 2036 });
      const expired = await call(t, merchant, 'PATCH', `/api/v2/payment-methods/${method.id}`, { expiry_month: 1, expiry_year: 2001 });
      assert.equal(expired.statusCode, 400);
      assert.equal(expired.json().error.code, 'invalid_card');
      const half = await call(t, merchant, 'PATCH', `/api/v2/payment-methods/${method.id}`, { expiry_month: 3 });
      assert.deepEqual([half.statusCode, half.json()], [400, shapeC('invalid_request', 'expiry_month and expiry_year go together')]);
      assert.deepEqual(await callOk(t, merchant, 'GET', `/api/v2/payment-methods/${method.id}`), renamed);

      assert.equal(await callOk(t, merchant, 'DELETE', `/api/v2/payment-methods/${master.id}`, undefined, 204), undefined);
      assert.equal((await call(t, merchant, 'GET', `/api/v2/payment-methods/${master.id}`)).statusCode, 404);
      assert.deepEqual(await callOk(t, merchant, 'GET', `/api/v2/customers/${customer.id}/payment-methods`), [renamed]);
      // Deleted: saving that card again is allowed.
      await saveCardFor(t, merchant, customer.id, '5555555555554444');
      await ledgerClean(t);
    });

    it('refuses bad saves: used, foreign or malformed nonces, wrong expiry, unknown customers, changing nothing', async () => {
      const merchant = await t.newMerchant();
      const other = await t.newMerchant();
      const customer = await newCustomer(t, merchant);
      const theirs = await newCustomer(t, other);
      const nonce = await nonceFor(t.app, merchant);
      const body = { source: nonce, expiry_month: EXPIRY_MONTH, expiry_year: EXPIRY_YEAR };
      const cases: Array<[string, unknown, number, string]> = [
        [`/api/v2/customers/${theirs.id}/payment-methods`, body, 404, 'not_found'],
        [`/api/v2/customers/${customer.id}/payment-methods`, { ...body, source: 'nonce-abc' }, 400, 'invalid_nonce'],
        [`/api/v2/customers/${customer.id}/payment-methods`, { ...body, expiry_year: EXPIRY_YEAR + 1 }, 400, 'invalid_card'],
        [`/api/v2/customers/${customer.id}/payment-methods`, { ...body, last4: '4242' }, 400, 'invalid_card'],
        [`/api/v2/customers/${customer.id}/payment-methods`, { ...body, cvv2: '123' }, 400, 'invalid_request'],
        [`/api/v2/customers/${customer.id}/payment-methods`, { source: nonce }, 400, 'invalid_request'],
      ];
      for (const [url, payload, status, code] of cases) {
        const response = await call(t, merchant, 'POST', url, payload);
        assert.equal(response.statusCode, status, `${url} ${JSON.stringify(payload)}: ${response.body}`);
        assert.equal(response.json().error.code, code);
      }
      // The other merchant cannot use this merchant's nonce for its own customer either.
      const foreign = await call(t, other, 'POST', `/api/v2/customers/${theirs.id}/payment-methods`, body);
      assert.equal(foreign.json().error.code, 'invalid_nonce');
      assert.deepEqual(await callOk(t, merchant, 'GET', `/api/v2/customers/${customer.id}/payment-methods`), []);
      // The nonce survived every refusal.
      await callOk(t, merchant, 'POST', `/api/v2/customers/${customer.id}/payment-methods`, body, 201);
      const reused = await call(t, merchant, 'POST', `/api/v2/customers/${customer.id}/payment-methods`, body);
      assert.equal(reused.json().error.code, 'invalid_nonce');
      for (const [method, url] of [
        ['GET', '/api/v2/payment-methods/999999999'],
        ['PATCH', '/api/v2/payment-methods/999999999'],
        ['DELETE', '/api/v2/payment-methods/999999999'],
      ] as const) {
        const response = await call(t, merchant, method, url, method === 'PATCH' ? { name: 'x' } : undefined);
        assert.equal(response.statusCode, 404, `${method} ${url}`);
      }
      await ledgerClean(t);
    });

    it('charges pm-<id> with only {source, amount}: shape A, the customer named, credited, in the customer transactions', async () => {
      const merchant = await t.newMerchant();
      const customer = await newCustomer(t, merchant);
      const method = await saveCardFor(t, merchant, customer.id);
      const response = await postCharge(t.app, basicOf(merchant), { source: `pm-${method.id}`, amount: 12.34 });
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.status, 'Approved');
      assert.equal(body.last_4, '1111');
      assert.equal(body.transaction.card_details.expiry_month, EXPIRY_MONTH);
      assert.equal(body.transaction.customer.customer_id, String(customer.id));
      assert.equal(body.transaction.billing_info.first_name, 'Ada');
      assert.equal(body.transaction.billing_info.street, '');
      assert.equal(await availableCents(t, merchant.merchant_id), 1234);
      const listed = await callOk(t, merchant, 'GET', `/api/v2/customers/${customer.id}/transactions`);
      assert.deepEqual(listed, [body]);
      assert.deepEqual(await callOk(t, merchant, 'GET', `/api/v2/transactions/${body.reference_number}`), body);
      await ledgerClean(t);
    });

    it('a pm- charge honours Idempotency-Key, authorizes and captures, and is refunded after settlement', async () => {
      const merchant = await t.newMerchant();
      const customer = await newCustomer(t, merchant);
      const method = await saveCardFor(t, merchant, customer.id);
      const first = await postCharge(t.app, basicOf(merchant), { source: `pm-${method.id}`, amount: 20, capture: false }, { 'idempotency-key': 'order-1' });
      const again = await postCharge(t.app, basicOf(merchant), { source: `pm-${method.id}`, amount: 20, capture: false }, { 'idempotency-key': 'order-1' });
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body, first.body);
      const reused = await postCharge(t.app, basicOf(merchant), { source: `pm-${method.id}`, amount: 21 }, { 'idempotency-key': 'order-1' });
      assert.equal(reused.json().error.code, 'idempotency_key_reused');
      const pk = first.json().reference_number;
      assert.equal(first.json().transaction.status_details.status, 'approved');
      assert.equal(await availableCents(t, merchant.merchant_id), 0);
      await operateOk(t, merchant, 'capture', { reference_number: pk });
      await closeSandboxBatch(t, merchant);
      const refund = await operateOk(t, merchant, 'refund', { reference_number: pk, amount: 5 });
      assert.equal(refund.transaction.transaction_details.type, 'refund');
      assert.equal(await availableCents(t, merchant.merchant_id), 1500);
      await ledgerClean(t);
    });

    it('charges ref-<reference number> with the card of an earlier approved charge, by nonce or by saved card', async () => {
      const merchant = await t.newMerchant();
      const nonce = await nonceFor(t.app, merchant, '5555555555554444');
      const earlier = (await postCharge(t.app, basicOf(merchant), chargeBody(nonce, { amount: 10 }))).json();
      const byRef = await postCharge(t.app, basicOf(merchant), { source: `ref-${earlier.reference_number}`, amount: 7.5 });
      assert.equal(byRef.statusCode, 200, byRef.body);
      assert.equal(byRef.json().status, 'Approved');
      assert.equal(byRef.json().last_4, '4444');
      assert.equal(byRef.json().transaction.billing_info.street, '12 Analytical Way');
      // A reference to a reference works too.
      const chained = await postCharge(t.app, basicOf(merchant), { source: `ref-${byRef.json().reference_number}`, amount: 1 });
      assert.equal(chained.json().status, 'Approved', chained.body);

      const customer = await newCustomer(t, merchant);
      const method = await saveCardFor(t, merchant, customer.id, '378282246310005');
      const byMethod = (await postCharge(t.app, basicOf(merchant), { source: `pm-${method.id}`, amount: 3 })).json();
      const again = await postCharge(t.app, basicOf(merchant), { source: `ref-${byMethod.reference_number}`, amount: 4 });
      assert.equal(again.json().last_4, '0005');
      assert.equal(again.json().transaction.customer.customer_id, String(customer.id));
      // Deleting the method leaves nothing to charge through its references.
      await callOk(t, merchant, 'DELETE', `/api/v2/payment-methods/${method.id}`, undefined, 204);
      const afterDelete = await postCharge(t.app, basicOf(merchant), { source: `ref-${byMethod.reference_number}`, amount: 4 });
      assert.equal(afterDelete.statusCode, 404, afterDelete.body);
      assert.equal(afterDelete.json().error.code, 'not_found');
      assert.equal(await availableCents(t, merchant.merchant_id), 1000 + 750 + 100 + 300 + 400);
      await ledgerClean(t);
    });

    it("refuses unknown, deleted, declined and another merchant's pm- and ref- sources with 404, charging nothing", async () => {
      const merchant = await t.newMerchant();
      const other = await t.newMerchant();
      const theirCustomer = await newCustomer(t, other);
      const theirMethod = await saveCardFor(t, other, theirCustomer.id);
      const theirCharge = (await postCharge(t.app, basicOf(other), { source: `pm-${theirMethod.id}`, amount: 5 })).json();
      const declinedNonce = await nonceFor(t.app, merchant, '4000000000000002');
      const declined = (await postCharge(t.app, basicOf(merchant), chargeBody(declinedNonce, { amount: 5 }))).json();
      assert.equal(declined.status, 'declined');
      for (const source of [
        `pm-${theirMethod.id}`,
        'pm-999999999',
        `ref-${theirCharge.reference_number}`,
        'ref-999999999',
        `ref-${declined.id}`,
        'pm-abc',
        'ref-',
      ]) {
        const response = await postCharge(t.app, basicOf(merchant), { source, amount: 5 });
        assert.equal(response.statusCode, 404, `${source}: ${response.body}`);
        assert.equal(response.json().error.code, 'not_found');
      }
      // A nonce still needs its expiry and billing address.
      const nonce = await nonceFor(t.app, merchant);
      const bare = await postCharge(t.app, basicOf(merchant), { source: nonce, amount: 5 });
      assert.deepEqual([bare.statusCode, bare.json()], [400, shapeC('invalid_request', 'expiry_month is required')]);
      assert.equal(await availableCents(t, merchant.merchant_id), 0);
      await ledgerClean(t);
    });

    it(`a customer keeps at most ${PAYMENT_METHODS_PER_CUSTOMER_MAX} saved cards`, async () => {
      const merchant = await t.newMerchant();
      const customer = await newCustomer(t, merchant);
      for (let i = 0; i < PAYMENT_METHODS_PER_CUSTOMER_MAX; i++) await saveCardFor(t, merchant, customer.id, visaNumber(1000 + i));
      const nonce = await nonceFor(t.app, merchant, visaNumber(999));
      const refused = await call(t, merchant, 'POST', `/api/v2/customers/${customer.id}/payment-methods`, {
        source: nonce,
        expiry_month: EXPIRY_MONTH,
        expiry_year: EXPIRY_YEAR,
      });
      assert.deepEqual(
        [refused.statusCode, refused.json()],
        [400, shapeC('invalid_request', `a customer may have at most ${PAYMENT_METHODS_PER_CUSTOMER_MAX} saved cards; delete one first`)],
      );
      const methods = await callOk(t, merchant, 'GET', `/api/v2/customers/${customer.id}/payment-methods?limit=100`);
      assert.equal(methods.length, PAYMENT_METHODS_PER_CUSTOMER_MAX);
      await callOk(t, merchant, 'DELETE', `/api/v2/payment-methods/${methods[0].id}`, undefined, 204);
      await callOk(
        t,
        merchant,
        'POST',
        `/api/v2/customers/${customer.id}/payment-methods`,
        { source: nonce, expiry_month: EXPIRY_MONTH, expiry_year: EXPIRY_YEAR },
        201,
      );
    });

    it('deleting a customer erases its saved cards: they can no longer be read or charged', async () => {
      const merchant = await t.newMerchant();
      const customer = await newCustomer(t, merchant);
      const method = await saveCardFor(t, merchant, customer.id);
      await callOk(t, merchant, 'DELETE', `/api/v2/customers/${customer.id}`, undefined, 204);
      assert.equal((await call(t, merchant, 'GET', `/api/v2/payment-methods/${method.id}`)).statusCode, 404);
      const charge = await postCharge(t.app, basicOf(merchant), { source: `pm-${method.id}`, amount: 5 });
      assert.equal(charge.statusCode, 404);
      await ledgerClean(t);
    });
  });
}
