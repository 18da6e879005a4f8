// What the accept.blue shop integrations' HTTP clients do with an answer
// (reference B.1 and B.5), for the stored-payment-data tests: Pinelab's
// Vendure plugin reads 404 as "none" and throws on any other status of 400
// or more with the body's error_message; Formidable throws on 400 or more.
// And a merchant whose payin source speaks the accept.blue dialect.
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import type { TestApp } from './app.ts';
import { basicOf } from './payin.ts';
import type { Json } from './stored.ts';

/** A refusal as the plugin surfaces it: its message and the whole answer. */
export class ShopError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: Json,
  ) {
    super(typeof body?.error_message === 'string' ? body.error_message : `HTTP ${statusCode}`);
  }
}

export class PinelabClient {
  constructor(
    private readonly t: TestApp,
    private readonly merchant: CreatedMerchant,
  ) {}

  /** Axios with every status accepted; the path carries its query string inline, as the plugin writes it. */
  async request(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, data?: unknown): Promise<Json> {
    const response = await this.t.app.inject({
      method,
      url: `/api/v2/${path}`,
      headers: { authorization: basicOf(this.merchant), 'content-type': 'application/json' },
      ...(data === undefined ? {} : { payload: JSON.stringify(data) }),
    });
    if (response.statusCode === 404) return undefined;
    const body = response.body === '' ? undefined : response.json();
    if (response.statusCode >= 400) throw new ShopError(response.statusCode, body);
    return body;
  }
}

/** Turns the merchant's first source to the accept.blue dialect (before any call, so no cached credential holds the old one). */
export async function useAcceptBlueDialect(t: TestApp, merchant: CreatedMerchant): Promise<CreatedMerchant> {
  await t.service.db.write((tx) => tx.run("UPDATE sources SET dialect = 'acceptblue' WHERE id = ?", [merchant.source.id]));
  return merchant;
}
