// Migration 016 (accept.blue's fields of stored customers, payment methods
// and schedules) on a store that holds them, through the store's own
// migrate(), on both dialects: a schedule's runs made before it are counted
// (prev_run_date, transaction_count), existing rows read with the new
// columns empty, and a card is then a duplicate only with the same expiry.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Db } from '../../src/store/db.ts';
import { insertPaymentMethod } from '../../src/store/payment-methods.ts';
import { migratePostgresFrom, migrateSqliteFrom } from '../helpers/migrations.ts';

const METHOD = `INSERT INTO payment_methods (merchant_id, customer_pk, source_id, card_number_enc, fingerprint, card_type, last4, bin, expiry_month, expiry_year, created_at_ms, updated_at_ms)
   VALUES ('mer_a', 1, 'src_a', EMPTY_BYTES, 'fp-1', 'Visa', '1111', '411111', 12, 2035, 1, 1)`;
const CHARGE = (day: string) =>
  `INSERT INTO charges (merchant_id, source_id, status, amount_cents, currency, card_type, last4, bin, expiry_month, expiry_year, card_number_enc, request_json, created_at_ms, updated_at_ms, schedule_pk)
   VALUES ('mer_a', 'src_a', 'approved', 500, 'USD', 'Visa', '1111', '411111', 12, 2035, EMPTY_BYTES, '{"day":"${day}"}', 1, 1, 1)`;

const SEED = [
  "INSERT INTO merchants (id, name, payouts_must_link, created_at_ms) VALUES ('mer_a', 'A', 0, 1)",
  "INSERT INTO sources (id, merchant_id, name, created_at_ms) VALUES ('src_a', 'mer_a', 'S', 1)",
  "INSERT INTO customers (merchant_id, identifier, created_at_ms, updated_at_ms) VALUES ('mer_a', 'Ada', 1, 1)",
  METHOD,
  `INSERT INTO recurring_schedules (merchant_id, customer_pk, payment_method_pk, title, amount_cents, frequency, next_run_date, cycle_date, anchor_day, num_left, active, status, created_at_ms, updated_at_ms)
   VALUES ('mer_a', 1, 1, 'Plan', 500, 'monthly', '2030-03-01', '2030-03-01', 1, 0, 1, 'active', 1, 1)`,
  `INSERT INTO recurring_schedules (merchant_id, customer_pk, payment_method_pk, title, amount_cents, frequency, next_run_date, cycle_date, anchor_day, num_left, active, status, created_at_ms, updated_at_ms)
   VALUES ('mer_a', 1, 1, 'Unrun', 500, 'monthly', '2030-03-01', '2030-03-01', 1, 0, 1, 'active', 1, 1)`,
  CHARGE('2030-01-01'),
  CHARGE('2030-02-01'),
  "INSERT INTO schedule_runs (schedule_pk, run_date, charge_pk, applied, created_at_ms) VALUES (1, '2030-01-01', 100000001, 1, 1)",
  "INSERT INTO schedule_runs (schedule_pk, run_date, charge_pk, applied, created_at_ms) VALUES (1, '2030-02-01', 100000002, 1, 1)",
];

async function check(db: Db): Promise<void> {
  const schedules = await db.read((tx) =>
    tx.all<{ pk: number; prev_run_date: string | null; transaction_count: number; run_source_id: string | null }>(
      'SELECT pk, prev_run_date, transaction_count, run_source_id FROM recurring_schedules ORDER BY pk',
    ),
  );
  assert.deepEqual(
    schedules.map((s) => [Number(s.pk), s.prev_run_date, Number(s.transaction_count), s.run_source_id]),
    [
      [1, '2030-02-01', 2, null],
      [2, null, 0, null],
    ],
  );
  const customer = await db.read((tx) =>
    tx.get<Record<string, unknown>>('SELECT website, alternate_phone, note, billing_info_json, shipping_info_json FROM customers'),
  );
  assert.deepEqual(customer, { website: null, alternate_phone: null, note: null, billing_info_json: null, shipping_info_json: null });
  const card = {
    merchant_id: 'mer_a',
    customer_pk: 1,
    source_id: 'src_a',
    card_number_enc: Buffer.alloc(0),
    fingerprint: 'fp-1',
    card_type: 'Visa',
    last4: '1111',
    bin: '411111',
    expiry_month: 12,
    expiry_year: 2035,
    name: null,
    avs_address: null,
    avs_zip: null,
  };
  assert.deepEqual(await db.write((tx) => insertPaymentMethod(tx, card, 2)), { duplicateOf: 1 });
  const renewed = await db.write((tx) => insertPaymentMethod(tx, { ...card, expiry_month: 6, expiry_year: 2036 }, 2));
  assert.ok('created' in renewed && renewed.created.pk !== 1, JSON.stringify(renewed));
}

describe('migration 016: accept.blue fields of stored payment data', () => {
  const c = { version: 16, seed: SEED, snapshot: async () => undefined, check };
  it('sqlite', () => migrateSqliteFrom(c));
  it('postgres', () => migratePostgresFrom(c));
});
