// Helpers of the check (ACH) API tests: a check charge body as the
// integrations send it, the merchant's ACH balances, everything a refusal
// must leave as it was, and moving a check along its life the way the
// worker would (the sandbox ACH clock, then the network's report applied
// with the entry transitions).
import assert from 'node:assert/strict';
import { merchantAccount } from '../../src/domain/ledger.ts';
import { DAY_MS } from '../../src/domain/clock.ts';
import { EVENT_VIEWS } from '../../src/flows/events/emit.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { getAchEntry } from '../../src/store/ach/entries.ts';
import { originateAchEntry, settleAchEntry } from '../../src/store/ach/transitions.ts';
import { getAccount } from '../../src/store/ledger.ts';
import { advanceAchClock, readAchClockOffsetMs } from '../../src/store/sandbox-ach-clocks.ts';
import type { TestApp } from '../helpers/app.ts';
import { basicOf } from '../helpers/payin.ts';
import type { Loose } from '../helpers/acceptblue.ts';
import { cardCipherFor } from '../../src/crypto/card-key.ts';
import { Secret } from '../../src/domain/secret.ts';

/** A routing number whose ABA check digit holds (JPMorgan Chase, New York). */
export const ROUTING = '021000021';
/** The same with its last digit changed: the check digit fails. */
export const BAD_ROUTING = '021000022';
/** Settles in the sandbox (no return scenario ends in 7890). */
export const ACCOUNT = '000123456789';

export function checkBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { amount: 25, name: 'Ada Lovelace', routing_number: ROUTING, account_number: ACCOUNT, ...overrides };
}

export async function post(t: TestApp, merchant: CreatedMerchant, path: string, body: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: `/api/v2/transactions/${path}`,
    headers: { authorization: basicOf(merchant), 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
}

export async function get(t: TestApp, merchant: CreatedMerchant, url: string) {
  return t.app.inject({ method: 'GET', url, headers: { authorization: basicOf(merchant) } });
}

/** POST /transactions/charge of a check; asserts 200 and returns the reply, read loosely as integrations read it. */
export async function chargeCheck(
  t: TestApp,
  merchant: CreatedMerchant,
  overrides: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Loose> {
  const response = await post(t, merchant, 'charge', checkBody(overrides), headers);
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

export type AchBalances = { available: number; ach_pending: number; ach_payins: number; ach_returns_due: number };

export async function achBalances(t: TestApp, merchantId: string): Promise<AchBalances> {
  const read = async (kind: keyof AchBalances) => Number((await t.service.db.read((tx) => getAccount(tx, merchantAccount(merchantId, kind))))!.balance_cents);
  return {
    available: await read('available'),
    ach_pending: await read('ach_pending'),
    ach_payins: await read('ach_payins'),
    ach_returns_due: await read('ach_returns_due'),
  };
}

/** Everything a refused request must leave as it was. */
export async function snapshot(t: TestApp, merchant: CreatedMerchant): Promise<Record<string, unknown>> {
  return t.service.db.read(async (tx) => ({
    accounts: await tx.all('SELECT id, balance_cents FROM accounts WHERE merchant_id = ? ORDER BY id', [merchant.merchant_id]),
    postings: await tx.all('SELECT kind, ref_id, amount_cents FROM postings WHERE merchant_id = ? ORDER BY id', [merchant.merchant_id]),
    charges: await tx.all('SELECT pk, kind, status, payment_type, refunded_cents FROM charges WHERE merchant_id = ? ORDER BY pk', [merchant.merchant_id]),
    entries: await tx.all('SELECT charge_pk, state FROM ach_entries WHERE merchant_id = ? ORDER BY charge_pk', [merchant.merchant_id]),
    keys: await tx.all('SELECT idem_key FROM idempotency_keys WHERE source_id = ? ORDER BY idem_key', [merchant.source.id]),
    events: await tx.all('SELECT type FROM events WHERE merchant_id = ? ORDER BY pk', [merchant.merchant_id]),
  }));
}

export async function entryState(t: TestApp, merchant: CreatedMerchant, pk: number): Promise<string | undefined> {
  return (await t.service.db.read((tx) => getAchEntry(tx, pk, merchant.merchant_id)))?.state;
}

/**
 * A Monday, 10:00 UTC: a check submitted then is originated at 21:00 the
 * same day, settles on Wednesday at 21:00 and may be refunded from the next
 * Monday, 10:00 (five business days).
 */
export const MONDAY_10_UTC_MS = Date.UTC(2026, 10, 30, 10, 0, 0);

/**
 * Moves the merchant's sandbox ACH clock from a Monday-10:00 submission (one
 * day: originated; three: settled) and asks the network where the entry is,
 * as the worker would; applies what it reports with the entry transitions.
 */
export async function originateAndSettle(t: TestApp, merchant: CreatedMerchant, pk: number, until: 'originated' | 'settled'): Promise<void> {
  const network = t.service.providers.achNetwork!;
  const offsetMs = await t.service.db.read((tx) => readAchClockOffsetMs(tx, merchant.merchant_id));
  const targetMs = (until === 'settled' ? 3 : 1) * DAY_MS;
  if (targetMs > offsetMs) await advanceAchClock(t.service.db, { merchantId: merchant.merchant_id, byMs: targetMs - offsetMs, nowMs: t.clock.nowMs() });
  const entry = (await t.service.db.read((tx) => getAchEntry(tx, pk, merchant.merchant_id)))!;
  const charge = await t.service.db.read((tx) => tx.get<{ last4: string }>('SELECT last4 FROM charges WHERE pk = ?', [pk]));
  const report = await network.status({
    reference: t.service.providerKeys.key('charge', pk),
    networkRef: entry.network_ref!,
    merchantId: merchant.merchant_id,
    direction: entry.direction,
    accountLast4: charge!.last4,
    signal: new AbortController().signal,
  });
  assert.equal(report.state, until);
  if (report.state !== 'originated' && report.state !== 'settled') return;
  const base = { chargePk: pk, merchantId: merchant.merchant_id, nowMs: t.clock.nowMs(), views: EVENT_VIEWS, nextCheckAtMs: null };
  if (entry.state === 'pending') assert.equal((await originateAchEntry(t.service.db, { ...base, originatedAtMs: report.originatedAtMs })).kind, 'moved');
  if (report.state === 'settled') assert.equal((await settleAchEntry(t.service.db, { ...base, settledAtMs: report.settledAtMs })).kind, 'moved');
}

/** A saved check payment method of a new customer of the merchant, written as the vault writes one (migration 029). Returns its id. */
export async function saveCheckMethod(
  t: TestApp,
  merchant: CreatedMerchant,
  method: { account: string; accountType: string; secCode: string; name?: string },
): Promise<{ methodPk: number; customerPk: number }> {
  const cipher = cardCipherFor(t.service.config);
  return t.service.db.write(async (tx) => {
    const nowMs = t.clock.nowMs();
    const customerPk = await tx.insert(
      'INSERT INTO customers (merchant_id, identifier, first_name, last_name, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?)',
      [merchant.merchant_id, 'Ada', 'Ada', 'Lovelace', nowMs, nowMs],
    );
    const methodPk = await tx.insert(
      `INSERT INTO payment_methods (merchant_id, customer_pk, source_id, card_number_enc, fingerprint, card_type, last4, bin, expiry_month, expiry_year, name, created_at_ms, updated_at_ms,
         method_type, routing_number, account_type, sec_code)
       VALUES (?, ?, ?, ?, ?, '', ?, '', 0, 0, ?, ?, ?, 'check', ?, ?, ?)`,
      [
        merchant.merchant_id,
        customerPk,
        merchant.source.id,
        cipher.seal(new Secret(method.account), 'card_number', merchant.source.id),
        cipher.fingerprint(new Secret(method.account), merchant.merchant_id),
        method.account.slice(-4),
        method.name ?? 'Ada Lovelace',
        nowMs,
        nowMs,
        ROUTING,
        method.accountType,
        method.secCode,
      ],
    );
    return { methodPk: Number(methodPk), customerPk: Number(customerPk) };
  });
}
