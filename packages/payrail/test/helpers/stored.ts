// Helpers for the stored customers, saved cards and recurring schedules
// tests (docs/api-decisions.md section 15): JSON calls with the merchant's
// Basic credentials, and shortcuts that create a customer and save a card.
import assert from 'node:assert/strict';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import type { TestApp } from './app.ts';
import { basicOf, EXPIRY_MONTH, EXPIRY_YEAR, nonceFor } from './payin.ts';

export async function call(t: TestApp, merchant: CreatedMerchant, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) {
  return t.app.inject({
    method,
    url,
    headers: { authorization: basicOf(merchant), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

/** Like call, and asserts the status; returns the JSON body (undefined for 204). */
export async function callOk(t: TestApp, merchant: CreatedMerchant, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown, status = 200) {
  const response = await call(t, merchant, method, url, body);
  assert.equal(response.statusCode, status, `${method} ${url}: ${response.body}`);
  return response.body === '' ? undefined : response.json();
}

export async function newCustomer(
  t: TestApp,
  merchant: CreatedMerchant,
  fields: Record<string, unknown> = {},
): Promise<{ id: number } & Record<string, unknown>> {
  return callOk(t, merchant, 'POST', '/api/v2/customers', { identifier: 'Ada Lovelace', first_name: 'Ada', last_name: 'Lovelace', ...fields }, 201);
}

export async function saveCardFor(
  t: TestApp,
  merchant: CreatedMerchant,
  customerId: number,
  card = '4111111111111111',
  extra: Record<string, unknown> = {},
): Promise<{ id: number } & Record<string, unknown>> {
  const source = await nonceFor(t.app, merchant, card);
  return callOk(
    t,
    merchant,
    'POST',
    `/api/v2/customers/${customerId}/payment-methods`,
    {
      source,
      expiry_month: EXPIRY_MONTH,
      expiry_year: EXPIRY_YEAR,
      ...extra,
    },
    201,
  );
}

/** POST /sandbox/schedules/:id/run with the merchant's transfer key. */
export async function runScheduleNow(t: TestApp, merchant: CreatedMerchant, scheduleId: number) {
  return t.app.inject({ method: 'POST', url: `/sandbox/schedules/${scheduleId}/run`, headers: { 'api-key': merchant.transfer_api_key } });
}

/** YYYY-MM-DD of the test clock's day plus `days`. */
export function dayOf(t: TestApp, days = 0): string {
  return new Date(t.clock.nowMs() + days * 86_400_000).toISOString().slice(0, 10);
}

/** A parsed JSON answer, read as loosely as a shop plugin reads it. */
export type Json = ReturnType<typeof JSON.parse>;
