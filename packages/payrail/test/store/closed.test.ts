// A request still running when its process closes the store (shutting down,
// its client perhaps gone already) is answered shutting_down (503, retry) in
// its API's envelope, not an unexpected 500, and nothing of it is written.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { refusalOfUnknownDialect } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { caller, failure, transferBody } from '../helpers/transfers.ts';

for (const kind of STORE_KINDS) {
  describe(`a closed store (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(async () => {
      await t.close();
    });

    it('answers shutting_down (503) in each API envelope, and logs no unexpected error', async () => {
      const merchant = await t.newMerchant({ fundCents: 100_000 });
      const api = caller(t.app, merchant.transfer_api_key);
      const body = transferBody();
      await t.service.db.close();

      const retry = 'The server is shutting down; retry';
      assert.deepEqual(await api.execute(body), { status: 503, body: failure('internal_server_error', retry) });
      assert.deepEqual(await api.status(body.id), { status: 503, body: failure('internal_server_error', retry) });
      const payin = await t.app.inject({
        method: 'GET',
        url: '/api/v2/transactions/100000001',
        headers: { authorization: `Basic ${Buffer.from(`${merchant.source.api_key}:${merchant.source.pin}`).toString('base64')}` },
      });
      assert.equal(payin.statusCode, 503);
      // Refused before its credentials could be read: both envelopes (docs/acceptblue-compatibility.md).
      assert.deepEqual(JSON.parse(payin.body), refusalOfUnknownDialect('internal_server_error', retry));
      assert.ok(!t.logLines.some((line) => line.includes('unexpected error')), 'no unexpected error logged');
    });
  });
}
