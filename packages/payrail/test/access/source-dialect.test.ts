// The wire dialect of a payin source (behaviour.md section 16): chosen when
// a merchant or a source is made (spec by default), changed later by one
// audited command, and effective at the source key's next request, since a
// write to `sources` invalidates the credential cache. A change names what
// it changed; an unknown or revoked source, or another merchant's, is
// refused and nothing changes. On both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createMerchant, createSource, issuingDeps, revokeSource, rotateSource, setSourceDialect, showMerchant } from '../../src/flows/merchants/merchants.ts';
import { auditEvents } from '../../src/flows/operations/audit.ts';
import { ApiError } from '../../src/errors.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basic, basicOf, postCharge } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/** The dialect a payin refusal was written in: shape C has `error`, accept.blue's has `status: "Error"`. */
function refusalDialect(body: Record<string, unknown>): 'spec' | 'acceptblue' | 'both' {
  const spec = 'error' in body;
  const acceptblue = body.status === 'Error' && body.status_code === 'E';
  if (spec && acceptblue) return 'both';
  return spec ? 'spec' : 'acceptblue';
}

for (const kind of STORE_KINDS) {
  describe(`source wire dialect (${kind})`, () => {
    let t: TestApp;
    let deps: ReturnType<typeof issuingDeps>;
    before(async () => {
      t = await createTestApp(kind);
      deps = issuingDeps(t.service);
    });
    after(async () => {
      await t.close();
    });

    const refusalOf = async (authorization: string) => {
      const answer = await postCharge(t.app, authorization, { amount: 'ten' });
      assert.equal(answer.statusCode, 400);
      return refusalDialect(answer.json() as Record<string, unknown>);
    };
    const dialectEvents = async (sourceId: string) =>
      (await auditEvents(t.service, { action: 'source.dialect', fromMs: null, toMs: null, beforeId: null }, 1_000)).rows
        .filter((row) => row.target === sourceId)
        .map((row) => [row.outcome, row.merchant_id, row.detail]);

    it('makes a first source in spec by default, or in the dialect asked for, and answers its key in it', async () => {
      const plain = await createMerchant(deps, { name: 'Plain shop' });
      assert.equal(plain.source.dialect, 'spec');
      assert.equal(await refusalOf(basicOf(plain)), 'spec');
      const shop = await createMerchant(deps, { name: 'Woo shop', dialect: 'acceptblue' });
      assert.equal(shop.source.dialect, 'acceptblue');
      assert.equal(await refusalOf(basicOf(shop)), 'acceptblue');
      const summary = await showMerchant(deps, shop.merchant_id);
      assert.deepEqual(summary.sources, [{ id: shop.source.id, name: 'Default source', dialect: 'acceptblue', revoked: false }]);
    });

    it('makes a further source in its own dialect; rotation keeps it', async () => {
      const merchant = await createMerchant(deps, { name: 'Two sources' });
      const second = await createSource(deps, { merchantId: merchant.merchant_id, name: 'Vendure', dialect: 'acceptblue' });
      assert.equal(second.dialect, 'acceptblue');
      assert.equal(await refusalOf(basic(second.api_key, second.pin)), 'acceptblue');
      assert.equal(await refusalOf(basicOf(merchant)), 'spec');
      const rotated = await rotateSource(deps, { merchantId: merchant.merchant_id, sourceId: second.id });
      assert.equal(rotated.dialect, 'acceptblue');
      assert.equal(await refusalOf(basic(rotated.api_key, rotated.pin)), 'acceptblue');
    });

    it("changes a source's dialect, effective at its key's next request (the credential cache is invalidated), audited", async () => {
      const merchant = await createMerchant(deps, { name: 'Switching shop' });
      const authorization = basicOf(merchant);
      assert.equal(await refusalOf(authorization), 'spec');
      const set = await setSourceDialect(deps, { sourceId: merchant.source.id, merchantId: null, dialect: 'acceptblue' });
      assert.deepEqual(set, { id: merchant.source.id, merchant_id: merchant.merchant_id, dialect: 'acceptblue', changed: true });
      assert.equal(await refusalOf(authorization), 'acceptblue');
      const again = await setSourceDialect(deps, { sourceId: merchant.source.id, merchantId: merchant.merchant_id, dialect: 'acceptblue' });
      assert.equal(again.changed, false);
      const back = await setSourceDialect(deps, { sourceId: merchant.source.id, merchantId: merchant.merchant_id, dialect: 'spec' });
      assert.equal(back.changed, true);
      assert.equal(await refusalOf(authorization), 'spec');
      assert.deepEqual((await dialectEvents(merchant.source.id)).reverse(), [
        ['success', merchant.merchant_id, 'dialect spec -> acceptblue'],
        ['success', merchant.merchant_id, 'dialect acceptblue (unchanged)'],
        ['success', merchant.merchant_id, 'dialect acceptblue -> spec'],
      ]);
    });

    it("refuses an unknown source, another merchant's source and a revoked one; nothing changes, the refusal is audited", async () => {
      const merchant = await createMerchant(deps, { name: 'Careful shop' });
      const other = await createMerchant(deps, { name: 'Other shop' });
      await assert.rejects(
        setSourceDialect(deps, { sourceId: 'src_nosuchsource', merchantId: null, dialect: 'acceptblue' }),
        (error: unknown) => error instanceof ApiError && error.error === 'not_found' && error.message === 'source src_nosuchsource not found',
      );
      await assert.rejects(
        setSourceDialect(deps, { sourceId: other.source.id, merchantId: merchant.merchant_id, dialect: 'acceptblue' }),
        (error: unknown) => error instanceof ApiError && error.error === 'not_found',
      );
      assert.equal((await showMerchant(deps, other.merchant_id)).sources[0]!.dialect, 'spec');
      await revokeSource(deps, { merchantId: merchant.merchant_id, sourceId: merchant.source.id });
      await assert.rejects(
        setSourceDialect(deps, { sourceId: merchant.source.id, merchantId: null, dialect: 'acceptblue' }),
        (error: unknown) => error instanceof ApiError && error.error === 'invalid_request' && error.message === `source ${merchant.source.id} is revoked`,
      );
      assert.equal((await showMerchant(deps, merchant.merchant_id)).sources[0]!.dialect, 'spec');
      const refused = await dialectEvents(merchant.source.id);
      assert.deepEqual(refused, [['failure', null, `invalid_request: source ${merchant.source.id} is revoked`]]);
    });
  });
}
