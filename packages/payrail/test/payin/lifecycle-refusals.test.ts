// Bad input to the card lifecycle (docs/api-decisions.md sections 10 and 14),
// on both stores: every refusal is shape C naming the field or the reason,
// and nothing changes (balances, postings, transactions, batches), proven by
// a snapshot before and after and by the ledger verifier at the end.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DAY_MS } from '../../src/domain/clock.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { executeTransfer } from '../../src/flows/transfers/execute.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { chargeCard, closeSandboxBatch, getJson, operate, snapshot, verifyCard } from '../helpers/lifecycle.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

type Case = readonly [
  label: string,
  operation: 'capture' | 'void' | 'refund' | 'reversal',
  body: unknown,
  status: number,
  code: string,
  message: string | RegExp,
];

for (const kind of STORE_KINDS) {
  describe(`card lifecycle refusals (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    /** Runs each case and checks its shape C and that the merchant's records did not change. */
    async function refuses(merchantId: string, merchant: Parameters<typeof operate>[1], cases: readonly Case[]): Promise<void> {
      for (const [label, operation, body, status, code, message] of cases) {
        const before = await snapshot(t, merchantId);
        const response = await operate(t, merchant, operation, body);
        assert.equal(response.statusCode, status, `${label}: ${response.body}`);
        const json = response.json() as { error: { code: string; message: string } };
        assert.deepEqual(Object.keys(json), ['error'], label);
        assert.equal(json.error.code, code, `${label}: ${response.body}`);
        if (typeof message === 'string') assert.equal(json.error.message, message, label);
        else assert.match(json.error.message, message, label);
        assert.deepEqual(await snapshot(t, merchantId), before, `${label} changed something`);
      }
    }

    it('refuses unknown, foreign and malformed references, amounts above the limits, and the wrong operation for the state', async () => {
      const merchant = await t.newMerchant();
      const other = await t.newMerchant();
      const authorization = await chargeCard(t, merchant, { amount: 20, capture: false });
      const foreign = await chargeCard(t, other, { amount: 5 });
      const declined = await chargeCard(t, merchant, { card: '4000000000000002', amount: 8 });
      const settled = await chargeCard(t, merchant, { amount: 30 });
      await closeSandboxBatch(t, merchant);
      const unsettled = await chargeCard(t, merchant, { amount: 12 });
      const refund = (await operate(t, merchant, 'refund', { reference_number: settled, amount: 1 })).json().reference_number as number;
      const verification = (await verifyCard(t, merchant)).json().reference_number as number;
      await refuses(merchant.merchant_id, merchant, [
        ['unknown reference', 'capture', { reference_number: 999999999 }, 404, 'not_found', 'reference_number 999999999 not found'],
        ...(['capture', 'void', 'refund'] as const).map(
          (operation): Case => [
            `${operation} of a verification`,
            operation,
            { reference_number: verification },
            400,
            'invalid_request',
            `reference_number ${verification} is a verification: it moved no money, so it cannot be captured, voided or refunded`,
          ],
        ),
        ["another merchant's reference", 'refund', { reference_number: foreign }, 404, 'not_found', `reference_number ${foreign} not found`],
        ['reference as a string', 'void', { reference_number: String(authorization) }, 400, 'invalid_request', 'reference_number must be of type integer'],
        ['missing reference', 'capture', {}, 400, 'invalid_request', 'reference_number is required'],
        ['unknown field', 'capture', { reference_number: authorization, amout: 1 }, 400, 'invalid_request', 'unknown field amout'],
        [
          'capture more than authorized',
          'capture',
          { reference_number: authorization, amount: 20.01 },
          400,
          'invalid_amount',
          'amount exceeds the authorized amount 20.00',
        ],
        ['three decimals', 'capture', { reference_number: authorization, amount: 1.005 }, 400, 'invalid_amount', /amount/],
        ['negative amount', 'refund', { reference_number: settled, amount: -1 }, 400, 'invalid_amount', 'amount must be greater than zero'],
        ['amount as a string', 'refund', { reference_number: settled, amount: '1.00' }, 400, 'invalid_amount', 'amount must be of type number'],
        [
          'refund more than refundable',
          'refund',
          { reference_number: settled, amount: 29.01 },
          400,
          'invalid_amount',
          `amount exceeds the refundable 29.00 of reference_number ${settled}`,
        ],
        [
          'capture again with another amount',
          'capture',
          { reference_number: settled, amount: 5 },
          400,
          'invalid_request',
          `reference_number ${settled} is already captured (30.00); a transaction is captured once`,
        ],
        [
          'void of a settled transaction',
          'void',
          { reference_number: settled },
          400,
          'invalid_request',
          `reference_number ${settled} is settled; refund it instead`,
        ],
        [
          'refund of an unsettled one',
          'refund',
          { reference_number: unsettled },
          400,
          'invalid_request',
          `reference_number ${unsettled} is not settled yet; void it instead`,
        ],
        [
          'refund of an authorization',
          'refund',
          { reference_number: authorization },
          400,
          'invalid_request',
          `reference_number ${authorization} is not settled yet; void it instead`,
        ],
        [
          'capture of a declined charge',
          'capture',
          { reference_number: declined },
          400,
          'invalid_request',
          `reference_number ${declined} was declined; there is nothing to be captured`,
        ],
        [
          'void of a declined charge',
          'void',
          { reference_number: declined },
          400,
          'invalid_request',
          `reference_number ${declined} was declined; there is nothing to be voided`,
        ],
        [
          'refund of a declined charge',
          'refund',
          { reference_number: declined },
          400,
          'invalid_request',
          `reference_number ${declined} was declined; there is nothing to be refunded`,
        ],
        [
          'reversal of a declined charge',
          'reversal',
          { reference_number: declined },
          400,
          'invalid_request',
          `reference_number ${declined} was declined; there is nothing to be voided`,
        ],
        [
          'capture of a refund',
          'capture',
          { reference_number: refund },
          400,
          'invalid_request',
          `reference_number ${refund} is a refund; only charges can be captured`,
        ],
        [
          'refund of a refund',
          'refund',
          { reference_number: refund },
          400,
          'invalid_request',
          `reference_number ${refund} is a refund; only charges can be refunded`,
        ],
        ['partial void', 'void', { reference_number: unsettled, amount: 5 }, 400, 'invalid_amount', /^a void cancels the whole amount 12\.00/],
      ]);
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });

    it('refuses a refund that balance + overdraft cannot cover with insufficient_funds, and one of money that paid a transfer', async () => {
      const merchant = await t.newMerchant();
      const sale = await chargeCard(t, merchant, { amount: 50 });
      await closeSandboxBatch(t, merchant);
      // 40.00 of the charge pays a transfer: only 10.00 is refundable, and the balance holds 10.00.
      await executeTransfer(t.service, merchant.merchant_id, {
        id: '5001',
        sender_phone: '+14155550123',
        receiver_phone: '+254712345678',
        amount: '40.00',
        service: '1001',
        receiver_country: 'KE',
        receiver_currency: 'KES',
        attribute: [{ name: 'gatewayId', value: String(sale) }],
      });
      await refuses(merchant.merchant_id, merchant, [
        [
          'more than is not linked to transfers',
          'refund',
          { reference_number: sale, amount: 10.01 },
          400,
          'invalid_amount',
          `amount exceeds the refundable 10.00 of reference_number ${sale} (40.00 of it funds transfers)`,
        ],
      ]);
      // Spend the balance elsewhere so that even the refundable part is not covered.
      await executeTransfer(t.service, merchant.merchant_id, {
        id: '5002',
        sender_phone: '+14155550123',
        receiver_phone: '+254712345678',
        amount: '5.00',
        service: '1001',
        receiver_country: 'KE',
        receiver_currency: 'KES',
        attribute: [],
      });
      await refuses(merchant.merchant_id, merchant, [
        [
          'balance + overdraft short',
          'refund',
          { reference_number: sale, amount: 10 },
          400,
          'insufficient_funds',
          'balance + overdraft does not cover the refund of 10.00',
        ],
      ]);
      const unsettled = await chargeCard(t, merchant, { amount: 5 });
      await executeTransfer(t.service, merchant.merchant_id, {
        id: '5003',
        sender_phone: '+14155550123',
        receiver_phone: '+254712345678',
        amount: '5.00',
        service: '1001',
        receiver_country: 'KE',
        receiver_currency: 'KES',
        attribute: [{ name: 'gatewayId', value: String(unsettled) }],
      });
      await refuses(merchant.merchant_id, merchant, [
        [
          'void of a charge that funds a transfer',
          'void',
          { reference_number: unsettled },
          400,
          'invalid_request',
          `reference_number ${unsettled} funds transfers (5.00 linked); it cannot be voided`,
        ],
      ]);
      await t.worker.drain();
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });

    it('refuses a capture after the authorization expired (7 days) and operations on expired and voided authorizations', async () => {
      const merchant = await t.newMerchant();
      const authorization = await chargeCard(t, merchant, { amount: 20, capture: false });
      const voided = await chargeCard(t, merchant, { amount: 3, capture: false });
      await operate(t, merchant, 'void', { reference_number: voided });
      t.clock.advance(7 * DAY_MS);
      await refuses(merchant.merchant_id, merchant, [
        [
          'capture past 7 days, before the worker marks it',
          'capture',
          { reference_number: authorization },
          400,
          'invalid_request',
          `reference_number ${authorization}: the authorization expired 7 days after it was made`,
        ],
        [
          'capture of a voided authorization',
          'capture',
          { reference_number: voided },
          400,
          'invalid_request',
          `reference_number ${voided} is voided; it can no longer be captured`,
        ],
      ]);
      await t.worker.drain();
      assert.equal((await getJson(t, merchant, `/api/v2/transactions/${authorization}`)).json().transaction.status_details.status, 'expired');
      await refuses(merchant.merchant_id, merchant, [
        [
          'capture of an expired authorization',
          'capture',
          { reference_number: authorization },
          400,
          'invalid_request',
          `reference_number ${authorization} is expired; it can no longer be captured`,
        ],
        [
          'void of an expired authorization',
          'void',
          { reference_number: authorization },
          400,
          'invalid_request',
          `reference_number ${authorization} has expired; there is nothing to void`,
        ],
      ]);
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });

    it('refuses bad list filters naming them', async () => {
      const DATES_REVERSED = 'the date range ends before it starts: date_from/created_from must not be after date_to/created_to';
      const merchant = await t.newMerchant();
      for (const [query, message] of [
        ['status=stolen', 'status must be one of approved, captured, pending, settled, voided, expired, declined, error, originated, returned'],
        ['type=sale', 'type must be one of charge, refund, verify'],
        ['limit=101', 'limit must be an integer from 1 to 100'],
        ['limit=0', 'limit must be an integer from 1 to 100'],
        ['offset=-1', 'offset must be an integer from 0 to 100000'],
        ['date_from=2026-02-30', 'date_from must be a date (YYYY-MM-DD) or an ISO 8601 timestamp with a time zone, for example 2026-01-31T00:00:00Z'],
        ['created_to=2026-01-01', 'created_to must be an ISO 8601 timestamp with a time zone, for example 2026-01-31T00:00:00Z'],
        ['colour=red', 'unknown field colour'],
        ['date_from=2026-02-02&date_to=2026-02-01', DATES_REVERSED],
        ['created_from=2026-02-01T10:00:00Z&created_to=2026-02-01T09:59:59.999Z', DATES_REVERSED],
        ['date_from=2026-02-02&created_to=2026-02-01T23:59:59Z', DATES_REVERSED],
      ] as const) {
        const response = await getJson(t, merchant, `/api/v2/transactions?${query}`);
        assert.equal(response.statusCode, 400, query);
        assert.deepEqual(response.json(), { error: { code: 'invalid_request', message } }, query);
      }
      assert.equal((await getJson(t, merchant, '/api/v2/batches/12ab')).statusCode, 404);
      // A range of one instant, or of one day, is not reversed.
      for (const query of ['created_from=2026-02-01T10:00:00Z&created_to=2026-02-01T10:00:00Z', 'date_from=2026-02-01&date_to=2026-02-01']) {
        assert.equal((await getJson(t, merchant, `/api/v2/transactions?${query}`)).statusCode, 200, query);
      }
    });
  });
}
