// Helpers for the accept.blue integration replays (test/acceptblue/): a merchant
// whose source answers in the acceptblue dialect, and a client that calls the
// payin API as accept.blue's shop plugins do (Basic key:PIN, JSON bodies, the
// path under /api/v2/) and hands back status, body and headers, nothing more:
// each test reads the answer exactly as its plugin does.
import assert from 'node:assert/strict';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { deliverDue } from '../../src/flows/webhooks/deliver.ts';
import { sendWebhook } from '../../src/providers/webhook-sender.ts';
import type { TestApp } from './app.ts';
import { basicOf } from './payin.ts';

/** A parsed JSON answer, read as loosely as a shop plugin reads it. */
// biome-ignore lint/suspicious/noExplicitAny: the plugins read answers untyped, and so do these tests.
export type Loose = any;

export interface PluginAnswer {
  readonly status: number;
  readonly body: Loose;
  readonly text: string;
  readonly contentType: string;
}

/** A funded merchant whose first source answers in the acceptblue dialect. */
export async function acceptBlueMerchant(t: TestApp, fundCents = 1_000_000): Promise<CreatedMerchant> {
  const merchant = await t.newMerchant({ fundCents });
  await t.service.db.write((tx) => tx.run("UPDATE sources SET dialect = 'acceptblue' WHERE id = ?", [merchant.source.id]));
  return merchant;
}

/** A plugin's HTTP call: `path` is relative to /api/v2/ as the plugins write it. */
export async function pluginCall(
  t: TestApp,
  merchant: CreatedMerchant,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<PluginAnswer> {
  const response = await t.app.inject({
    method,
    url: `/api/v2/${path.replace(/^\//, '')}`,
    headers: { authorization: basicOf(merchant), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  const text = response.body;
  let parsed: Loose;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.statusCode, body: parsed, text, contentType: String(response.headers['content-type'] ?? '') };
}

/** Like pluginCall, asserting the HTTP status; returns the body. */
export async function pluginOk(
  t: TestApp,
  merchant: CreatedMerchant,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body: unknown,
  statuses: readonly number[] = [200, 201],
): Promise<Loose> {
  const answer = await pluginCall(t, merchant, method, path, body);
  assert.ok(statuses.includes(answer.status), `${method} ${path}: HTTP ${answer.status} ${answer.text}`);
  return answer.body;
}

/** accept.blue's "no error" on a success: null, empty or absent (some plugins fail on any non-empty error_message). */
export function assertNoError(body: Loose, what: string): void {
  for (const field of ['error_message', 'error_code', 'error_details']) {
    const value = body?.[field];
    assert.ok(
      value === undefined || value === null || value === '' || (typeof value === 'object' && Object.keys(value).length === 0),
      `${what}: ${field} is ${JSON.stringify(value)}`,
    );
  }
}

/** Delivers every due webhook now (the delivery worker's step). */
export async function deliverWebhooksNow(t: TestApp): Promise<void> {
  await t.worker.drain();
  await deliverDue({ db: t.service.db, clock: t.clock, log: t.service.log, config: t.service.config, send: sendWebhook });
}

/** A sandbox card number by behaviour (docs/sandbox.md). */
export const CARDS = {
  visa: '4111111111111111',
  mastercard: '5555555555554444',
  declined: '4000000000000002',
} as const;
