// One money format over the panel (web/format.ts amount()): thousands
// separators and the currency code on every amount a page shows, for USD
// balances and payins and for a transfer's receiver currency.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { createUser } from '../../src/flows/panel/users.ts';
import { executeTransfer } from '../../src/flows/transfers/execute.ts';
import { amount } from '../../src/web/format.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { decodeEntities, PanelClient } from '../helpers/panel.ts';
import { basicOf, chargeBody, nonceFor, postCharge } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const PASSWORD = 'correct horse battery staple';

/** A page's visible text: no head, no chart (its axis ticks are bare numbers), no tags. */
function visibleText(body: string): string {
  const main = body.replace(/<head>[\s\S]*?<\/head>/, '').replace(/<svg[\s\S]*?<\/svg>/g, '');
  return decodeEntities(main.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' '));
}

/** Every decimal amount in the text (an exchange rate, "at 129.25", is not one) with what follows it. */
function amountsIn(text: string): string[] {
  return [...text.matchAll(/(?<!at |[\d,.])-?[\d,]+\.\d{2,3}(?: [A-Z]{3})?/g)].map((m) => m[0]);
}

describe('amount()', () => {
  it('groups thousands and names the currency', () => {
    assert.equal(amount(123456, 'USD'), '1,234.56 USD');
    assert.equal(amount(31666250, 'KES'), '316,662.50 KES');
    assert.equal(amount(0, 'USD'), '0.00 USD');
    assert.equal(amount(-500000, 'USD'), '-5,000.00 USD');
    assert.equal(amount(5000, 'UGX', 0), '5,000 UGX');
    assert.equal(amount(1234567, 'KWD', 3), '1,234.567 KWD');
  });
});

for (const kind of STORE_KINDS) {
  describe(`money format over the panel pages (${kind})`, () => {
    let t: TestApp;
    let shop: CreatedMerchant;
    let merchant: PanelClient;
    let operator: PanelClient;
    let ref = 0;

    before(async () => {
      t = await createTestApp(kind);
      shop = await t.newMerchant({ fundCents: 123_456_789, name: 'Big Shop' });
      const deps = { db: t.service.db, clock: t.clock };
      await createUser(deps, { email: 'm@example.com', role: 'merchant', merchantId: shop.merchant_id, password: PASSWORD });
      await createUser(deps, { email: 'ops@example.com', role: 'operator', password: PASSWORD });
      const nonce = await nonceFor(t.app, shop, '4111111111111111');
      const response = await postCharge(t.app, basicOf(shop), chargeBody(nonce, { amount: 1500 }));
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json() as { reference_number?: number; id?: string };
      ref = body.reference_number ?? Number(body.id);
      const transfer = { id: '9001', sender_phone: '+14155550123', receiver_phone: '+254712345678', amount: '2450.00', service: '1001' };
      await executeTransfer(t.service, shop.merchant_id, { ...transfer, receiver_country: 'KE', receiver_currency: 'KES', attribute: [] });
      await t.worker.drain();
      merchant = new PanelClient(t.app);
      operator = new PanelClient(t.app);
      assert.equal((await merchant.signIn('m@example.com', PASSWORD)).status, 303);
      assert.equal((await operator.signIn('ops@example.com', PASSWORD)).status, 303);
    });
    after(() => t.close());

    it('shows the expected amounts in the one format', async () => {
      // 1,234,567.89 funded + 1,500.00 card payin - 2,450.00 paid out.
      assert.match(visibleText((await merchant.get('/dashboard/overview')).body), /Balance 1,233,617\.89 USD/);
      assert.match(visibleText((await merchant.get(`/dashboard/charges/${ref}`)).body), /Amount 1,500\.00 USD/);
      assert.match(visibleText((await merchant.get('/dashboard/transfers/9001')).body), /Receiver gets 316,662\.50 KES at 129\.25/);
      assert.match(visibleText((await merchant.get('/dashboard/transfers')).body), / 2,450\.00 USD /);
    });

    it('gives every amount on every page thousands separators and a currency code', async () => {
      const pages: Array<[PanelClient, string]> = [
        [merchant, '/dashboard/overview'],
        [merchant, '/dashboard/charges'],
        [merchant, `/dashboard/charges/${ref}`],
        [merchant, '/dashboard/transfers'],
        [merchant, '/dashboard/transfers/9001'],
        [operator, '/dashboard/operator/merchants'],
        [operator, `/dashboard/operator/merchants/${shop.merchant_id}`],
        [operator, `/dashboard/operator/merchants/${shop.merchant_id}/charges`],
        [operator, '/dashboard/operator/reconciliation'],
      ];
      let seen = 0;
      for (const [client, url] of pages) {
        const page = await client.get(url);
        assert.equal(page.status, 200, url);
        for (const found of amountsIn(visibleText(page.body))) {
          seen++;
          assert.match(found, /^-?\d{1,3}(,\d{3})*\.\d{2,3} [A-Z]{3}$/, `${url}: "${found}"`);
        }
      }
      assert.ok(seen >= 15, `only ${seen} amounts seen`);
    });
  });
}
