// How long a charge keeps the sealed card number later `ref-` charges use
// (issue 39 finding 4, domain/reference-card-retention.ts): a plain nonce
// charge keeps it 24 hours, long enough for the shop plugins that save the
// card of a charge they have just made; a void erases it at once; save_card,
// a saved-card token or the merchant's reference-cards setting keep it 13
// months; an approved verification keeps it 13 months too (Omnipay captures
// an authorize by `ref-` of its verify). The attack: read the store after a
// plain nonce charge was voided, or after a day, and find a card number the
// card-data key opens (ref_card_enc).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DAY_MS } from '../../src/domain/clock.ts';
import { REFERENCE_CARD_BRIEF_MS, REFERENCE_CARD_RETENTION_MS } from '../../src/domain/reference-card-retention.ts';
import { type CreatedMerchant, issuingDeps, setKeepsReferenceCards } from '../../src/flows/merchants/merchants.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { verifyCard } from '../helpers/lifecycle.ts';
import { basicOf, BILLING, chargeBody, nonceFor, postCharge } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

// biome-ignore lint/suspicious/noExplicitAny: the plugins read answers untyped, and so do these tests.
type Loose = any;

const A_MINUTE_MS = 60_000;

async function acceptBlueMerchant(t: TestApp): Promise<CreatedMerchant> {
  const merchant = await t.newMerchant({ fundCents: 1_000_000 });
  await t.service.db.write((tx) => tx.run("UPDATE sources SET dialect = 'acceptblue' WHERE id = ?", [merchant.source.id]));
  return merchant;
}

async function call(t: TestApp, merchant: CreatedMerchant, path: string, body: unknown) {
  const response = await t.app.inject({
    method: 'POST',
    url: `/api/v2/${path}`,
    headers: { authorization: basicOf(merchant), 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  return { status: response.statusCode, body: JSON.parse(response.body) as Loose, text: response.body };
}

/** An approved nonce charge's reference number. */
async function nonceCharge(t: TestApp, merchant: CreatedMerchant, overrides: Record<string, unknown> = {}): Promise<number> {
  const response = await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant), { amount: 12, ...overrides }));
  assert.equal(response.statusCode, 200, response.body);
  const body = response.json() as Loose;
  assert.ok(body.status === 'Approved' || body.status_code === 'A', response.body);
  return Number(body.reference_number ?? body.id);
}

/** A `ref-` charge, as Omnipay's chargeStoredCard sends it. */
function refCharge(t: TestApp, merchant: CreatedMerchant, reference: number) {
  return call(t, merchant, 'transactions/charge', { source: `ref-${reference}`, amount: 5 });
}

/** Whether the charge's row still holds a sealed card number a `ref-` charge could use: what the attacker reads. */
async function keepsCard(t: TestApp, pk: number): Promise<boolean> {
  const row = await t.service.db.read((tx) => tx.get<{ ref_card_enc: Buffer | null }>('SELECT ref_card_enc FROM charges WHERE pk = ?', [pk]));
  assert.ok(row !== undefined, `charge ${pk} exists`);
  return row.ref_card_enc !== null && row.ref_card_enc.length > 0;
}

for (const kind of STORE_KINDS) {
  describe(`reference card retention (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it('finding 4: a voided nonce charge keeps no card number', async () => {
      const merchant = await acceptBlueMerchant(t);
      const auth = await nonceCharge(t, merchant, { capture: false });
      const sale = await nonceCharge(t, merchant);
      for (const pk of [auth, sale]) {
        const voided = await call(t, merchant, 'transactions/void', { reference_number: pk });
        assert.equal(voided.body.status_code, 'A', voided.text);
        assert.equal(await keepsCard(t, pk), false, `voided charge ${pk} still holds a card number`);
      }
      // ...and a `ref-` of it is refused in accept.blue's envelope (what a plugin reads), not a 500.
      const again = await refCharge(t, merchant, sale);
      assert.equal(again.status, 400, again.text);
      assert.equal(again.body.status_code, 'E');
      assert.equal(again.body.error_code, 'reference_card_not_kept');
      assert.match(again.body.error_message, /no longer keeps its card/);
    });

    it("finding 4: a plain nonce charge's card is erased after 24 hours; the plugins' ref- flows right after the charge still work", async () => {
      const merchant = await acceptBlueMerchant(t);
      const charged = await nonceCharge(t, merchant);
      // Vendure's Google Pay flow: a payment method from `ref-<reference_number>` right after the charge.
      const customer = await call(t, merchant, 'customers', { identifier: 'ada', customer_number: `ada-${kind}`, first_name: 'Ada' });
      assert.ok(customer.status === 200 || customer.status === 201, customer.text);
      const method = await call(t, merchant, `customers/${customer.body.id}/payment-methods`, { source: `ref-${charged}` });
      assert.equal(method.status, 201, method.text);
      assert.equal(method.body.last4, '1111');
      // Omnipay's chargeStoredCard, within the day: the charge's card, and the new charge keeps it no longer than its source.
      const byReference = await refCharge(t, merchant, charged);
      assert.equal(byReference.body.status_code, 'A', byReference.text);
      const chained = Number(byReference.body.reference_number);
      assert.equal(await keepsCard(t, charged), true);

      t.clock.advance(REFERENCE_CARD_BRIEF_MS + A_MINUTE_MS);
      // Refused at once, before the worker has erased anything: a clear refusal in the caller's envelope.
      const late = await refCharge(t, merchant, charged);
      assert.equal(late.status, 400, late.text);
      assert.equal(late.body.status, 'Error');
      assert.equal(late.body.status_code, 'E');
      assert.equal(late.body.error_code, 'reference_card_not_kept');
      await t.worker.drain();
      assert.equal(await keepsCard(t, charged), false, 'a plain nonce charge still holds its card number after a day');
      assert.equal(await keepsCard(t, chained), false);
      // The saved payment method is what keeps the card, as the merchant asked.
      const byMethod = await call(t, merchant, 'transactions/charge', { source: `pm-${method.body.id}`, amount: 5 });
      assert.equal(byMethod.body.status_code, 'A', byMethod.text);
    });

    it('finding 4: the spec dialect refuses a ref- of an erased card in shape C', async () => {
      const merchant = await t.newMerchant();
      const charged = await nonceCharge(t, merchant);
      t.clock.advance(REFERENCE_CARD_BRIEF_MS + A_MINUTE_MS);
      await t.worker.drain();
      const late = await postCharge(t.app, basicOf(merchant), { source: `ref-${charged}`, amount: 5, billing_info: { ...BILLING } });
      assert.equal(late.statusCode, 400, late.body);
      assert.equal((late.json() as Loose).error.code, 'reference_card_not_kept');
    });

    it('save_card, a saved-card token and the merchant setting keep the card 13 months, then it is erased', async () => {
      const merchant = await acceptBlueMerchant(t);
      const saved = await nonceCharge(t, merchant, { save_card: true });
      const token = await t.service.db.read((tx) => tx.get<{ card_ref: string }>('SELECT card_ref FROM charges WHERE pk = ?', [saved]));
      const cardRef = token?.card_ref;
      assert.ok(cardRef !== undefined, 'save_card issued a token');
      const byToken = await call(t, merchant, 'transactions/charge', { source: `tkn-${cardRef}`, amount: 7 });
      assert.equal(byToken.body.status_code, 'A', byToken.text);
      const tokenCharge = Number(byToken.body.reference_number);
      const plain = await nonceCharge(t, merchant);
      const keeping = await acceptBlueMerchant(t);
      await setKeepsReferenceCards(issuingDeps(t.service), { merchantId: keeping.merchant_id, on: true });
      const kept = await nonceCharge(t, keeping);

      t.clock.advance(2 * DAY_MS);
      await t.worker.drain();
      assert.equal(await keepsCard(t, plain), false);
      for (const [who, pk] of [
        [merchant, saved],
        [merchant, tokenCharge],
        [keeping, kept],
      ] as const) {
        assert.equal(await keepsCard(t, pk), true);
        const later = await refCharge(t, who, pk);
        assert.equal(later.body.status_code, 'A', later.text);
      }
      // Turning the setting off changes only charges made from then on.
      await setKeepsReferenceCards(issuingDeps(t.service), { merchantId: keeping.merchant_id, on: false });
      const afterOff = await nonceCharge(t, keeping);

      t.clock.advance(REFERENCE_CARD_RETENTION_MS);
      await t.worker.drain();
      for (const pk of [saved, tokenCharge, kept, afterOff]) assert.equal(await keepsCard(t, pk), false, `charge ${pk} outlived the retention`);
    });

    it("an approved verification's card stays usable by ref- beyond the day (Omnipay: authorize by verify, capture later)", async () => {
      const merchant = await acceptBlueMerchant(t);
      const verified = await verifyCard(t, merchant);
      assert.equal(verified.statusCode, 200, verified.body);
      const reference = Number((verified.json() as Loose).reference_number);
      t.clock.advance(3 * DAY_MS);
      await t.worker.drain();
      const capture = await refCharge(t, merchant, reference);
      assert.equal(capture.body.status_code, 'A', capture.text);
    });
  });
}
