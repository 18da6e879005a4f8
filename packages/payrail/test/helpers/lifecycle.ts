// Helpers for the card lifecycle tests (docs/api-decisions.md sections 10
// and 14): authorize or sell a test card, call capture/void/refund/reversal,
// close the sandbox batch, and read balances and postings to prove that
// refusals change nothing.
import assert from 'node:assert/strict';
import { merchantAccount } from '../../src/domain/ledger.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { getAccount } from '../../src/store/ledger.ts';
import type { TestApp } from './app.ts';
import { BILLING, basicOf, chargeBody, EXPIRY_MONTH, EXPIRY_YEAR, nonceFor, postCharge } from './payin.ts';

export type LifecycleOperation = 'capture' | 'void' | 'refund' | 'reversal';

/** Charges `card` for `amount` dollars; `capture: false` authorizes only. Returns the reference number. */
export async function chargeCard(t: TestApp, merchant: CreatedMerchant, options: { card?: string; amount: number; capture?: boolean }): Promise<number> {
  const nonce = await nonceFor(t.app, merchant, options.card ?? '4111111111111111');
  const body = chargeBody(nonce, { amount: options.amount, ...(options.capture === undefined ? {} : { capture: options.capture }) });
  const response = await postCharge(t.app, basicOf(merchant), body);
  assert.equal(response.statusCode, 200, response.body);
  const json = response.json() as { reference_number?: number; id?: string };
  return json.reference_number ?? Number(json.id);
}

export async function operate(t: TestApp, merchant: CreatedMerchant, operation: LifecycleOperation, body: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: `/api/v2/transactions/${operation}`,
    headers: { authorization: basicOf(merchant), 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Like operate, and asserts the reply is 200 (shape A or B). */
export async function operateOk(t: TestApp, merchant: CreatedMerchant, operation: LifecycleOperation, body: unknown, headers: Record<string, string> = {}) {
  const response = await operate(t, merchant, operation, body, headers);
  assert.equal(response.statusCode, 200, `${operation}: ${response.body}`);
  return response.json();
}

export async function verifyCard(t: TestApp, merchant: CreatedMerchant, card = '4111111111111111', headers: Record<string, string> = {}) {
  const source = await nonceFor(t.app, merchant, card);
  return t.app.inject({
    method: 'POST',
    url: '/api/v2/transactions/verify',
    headers: { authorization: basicOf(merchant), 'content-type': 'application/json', ...headers },
    payload: JSON.stringify({ source, expiry_month: EXPIRY_MONTH, expiry_year: EXPIRY_YEAR, billing_info: { ...BILLING } }),
  });
}

/** POST /sandbox/batches/close for the merchant; returns the batches it closed. */
export async function closeSandboxBatch(t: TestApp, merchant: CreatedMerchant): Promise<Array<Record<string, unknown>>> {
  const response = await t.app.inject({ method: 'POST', url: '/sandbox/batches/close', headers: { 'api-key': merchant.transfer_api_key } });
  assert.equal(response.statusCode, 200, response.body);
  return (response.json() as { batches: Array<Record<string, unknown>> }).batches;
}

export async function getJson(t: TestApp, merchant: CreatedMerchant, url: string) {
  return t.app.inject({ method: 'GET', url, headers: { authorization: basicOf(merchant) } });
}

/** status_details.status of a reference, as GET /api/v2/transactions/:id shows it (or shape B's status). */
export async function statusOf(t: TestApp, merchant: CreatedMerchant, pk: number): Promise<string> {
  const response = await getJson(t, merchant, `/api/v2/transactions/${pk}`);
  assert.equal(response.statusCode, 200, response.body);
  const json = response.json() as { transaction?: { status_details: { status: string } }; status: string };
  return json.transaction?.status_details.status ?? json.status;
}

export async function availableCents(t: TestApp, merchantId: string): Promise<number> {
  return Number((await t.service.db.read((tx) => getAccount(tx, merchantAccount(merchantId, 'available'))))!.balance_cents);
}

/** Everything a refusal must leave as it was: balances, postings, transactions, batches. */
export async function snapshot(t: TestApp, merchantId: string): Promise<Record<string, unknown>> {
  return t.service.db.read(async (tx) => ({
    accounts: await tx.all('SELECT id, balance_cents FROM accounts WHERE merchant_id = ? ORDER BY id', [merchantId]),
    postings: await tx.all('SELECT kind, ref_id, amount_cents FROM postings WHERE merchant_id = ? ORDER BY id', [merchantId]),
    charges: await tx.all(
      'SELECT pk, kind, status, stage, op, captured_cents, voided_cents, refunded_cents, linked_cents, batch_id FROM charges WHERE merchant_id = ? ORDER BY pk',
      [merchantId],
    ),
    batches: await tx.all('SELECT id, closed_at_ms FROM batches WHERE merchant_id = ? ORDER BY id', [merchantId]),
  }));
}

/** How many postings of `kind` name reference `pk`. */
export async function postingCount(t: TestApp, pk: number, kind: string): Promise<number> {
  const row = await t.service.db.read((tx) =>
    tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM postings WHERE ref_type = 'charge' AND ref_id = ? AND kind = ?", [String(pk), kind]),
  );
  return Number(row?.n ?? 0);
}
