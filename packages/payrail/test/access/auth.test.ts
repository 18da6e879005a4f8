// Credential semantics on the transfer API (docs/api-decisions.md sections 2, 13): missing,
// malformed, wrong or revoked -> 401 authentication_error, all with the one
// message; a valid credential of the wrong kind -> 403; a key of the other
// environment names the right one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTH_FAILED_MESSAGES } from '../../src/flows/access/authenticate.ts';
import { issuingDeps, rotateSource } from '../../src/flows/merchants/merchants.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

for (const kind of STORE_KINDS) {
  describe(`transfer API authentication (${kind})`, () => {
    let t: TestApp;
    let merchant: CreatedMerchant;
    before(async () => {
      t = await createTestApp(kind);
      merchant = await t.newMerchant({ fundCents: 12_345 });
    });
    after(async () => {
      await t.close();
    });

    const balance = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/api/agent_balance', headers });
    const failure = (message: string) => ({ success: 'false', error: { message, code: 'authentication_error' } });

    it('accepts the transfer API key', async () => {
      const response = await balance({ 'api-key': merchant.transfer_api_key });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { success: true, error: '', balance: { balance: 12_345, overdraft: 0 } });
    });

    it('refuses a missing key with 401', async () => {
      const response = await balance({});
      assert.equal(response.statusCode, 401);
      assert.deepEqual(response.json(), failure(AUTH_FAILED_MESSAGES.transfer));
    });

    it('refuses malformed and unknown keys with 401', async () => {
      for (const key of ['nope', `${merchant.transfer_api_key}x`, 'sbx_tk_AAAAAAAAAAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB', 'x'.repeat(5000)]) {
        const response = await balance({ 'api-key': key });
        assert.equal(response.statusCode, 401, key.slice(0, 40));
        assert.deepEqual(response.json(), failure(AUTH_FAILED_MESSAGES.transfer));
      }
    });

    it('refuses a right id with a wrong secret with 401', async () => {
      const parts = merchant.transfer_api_key.split('_');
      const forged = `${parts[0]}_${parts[1]}_${parts[2]}_${'A'.repeat(32)}`;
      const response = await balance({ 'api-key': forged });
      assert.equal(response.statusCode, 401);
      assert.deepEqual(response.json(), failure(AUTH_FAILED_MESSAGES.transfer));
    });

    it('names the right environment for a production key', async () => {
      const live = merchant.transfer_api_key.replace(/^sbx_/, 'live_');
      const response = await balance({ 'api-key': live });
      assert.equal(response.statusCode, 401);
      assert.deepEqual(response.json(), failure('this is a production credential; use it with the production environment (this is sandbox)'));
    });

    it('refuses a payin source key or tokenization token sent as API-KEY with 403', async () => {
      for (const key of [merchant.source.api_key, merchant.source.tokenization_token]) {
        const response = await balance({ 'api-key': key });
        assert.equal(response.statusCode, 403);
        assert.deepEqual(response.json(), failure('this credential cannot call the transfer API; use the transfer API key'));
      }
    });

    it('keeps merchants apart', async () => {
      const other = await t.newMerchant({ fundCents: 1 });
      const response = await balance({ 'api-key': other.transfer_api_key });
      assert.deepEqual(response.json(), { success: true, error: '', balance: { balance: 1, overdraft: 0 } });
    });

    it('refuses rotated source credentials at once, even as the wrong kind', async () => {
      await rotateSource(issuingDeps(t.service), { merchantId: merchant.merchant_id, sourceId: merchant.source.id });
      const response = await balance({ 'api-key': merchant.source.api_key });
      assert.equal(response.statusCode, 401);
      assert.deepEqual(response.json(), failure(AUTH_FAILED_MESSAGES.transfer));
    });
  });
}
