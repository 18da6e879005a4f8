// Credentials of the card payin API (docs/interface-spec.md section 5, docs/api-decisions.md sections 2, 13): 401
// for a missing, malformed, wrong or revoked credential (one message for all)
// and for another environment's key; 403 for a valid credential of the wrong
// kind, on the tokenization endpoint whatever the PIN. Covers
// the charge, read and tokenization endpoints, on both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { issueKey } from '../../src/domain/credentials.ts';
import { AUTH_FAILED_MESSAGES } from '../../src/flows/access/authenticate.ts';
import { issuingDeps, revokeSource, rotateSource, type CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basic, basicOf, chargeBody, getTransaction, nonceFor, postCharge, refusalOfUnknownDialect, tokenizeRaw } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const CARD = { card_number: '4111111111111111', expiry_month: 12, expiry_year: 2035, cvv2: '123' };
/** docs/api-decisions.md section 13: one message for every failed authentication of the payin API. */
const FAILED = AUTH_FAILED_MESSAGES.payin;

for (const kind of STORE_KINDS) {
  describe(`payin authentication (${kind})`, () => {
    let t: TestApp;
    let merchant: CreatedMerchant;
    let nonce: string;
    const deps = () => issuingDeps(t.service);
    before(async () => {
      t = await createTestApp(kind);
      merchant = await t.newMerchant();
      nonce = await nonceFor(t.app, merchant);
    });
    after(async () => {
      await t.close();
    });

    const expect401 = async (authorization: string | undefined, message: string) => {
      const headers = authorization === undefined ? {} : { authorization };
      const charge = await t.app.inject({ method: 'POST', url: '/api/v2/transactions/charge', headers, payload: chargeBody(nonce) });
      assert.equal(charge.statusCode, 401, charge.body);
      assert.deepEqual(charge.json(), refusalOfUnknownDialect('authentication_error', message));
      const read = await t.app.inject({ method: 'GET', url: '/api/v2/transactions/100000001', headers });
      assert.equal(read.statusCode, 401, read.body);
      assert.deepEqual(read.json(), refusalOfUnknownDialect('authentication_error', message));
    };

    it('charge: 401 without an Authorization header', async () => {
      await expect401(undefined, FAILED);
    });

    it('charge: 403 for a valid tokenization token sent as Bearer, 401 for an invalid one', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v2/transactions/charge',
        headers: { authorization: `Bearer ${merchant.source.tokenization_token}` },
        payload: chargeBody(nonce),
      });
      assert.equal(response.statusCode, 403, response.body);
      assert.deepEqual(
        response.json(),
        refusalOfUnknownDialect('permission_denied', 'a tokenization token only tokenizes cards; use a source API key and its PIN with Basic auth'),
      );
      const token = merchant.source.tokenization_token;
      await expect401(`Bearer ${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`, FAILED);
      await expect401('Bearer nope', FAILED);
    });

    it('charge: 401 for a malformed Basic header', async () => {
      await expect401(`Basic ${Buffer.from(merchant.source.api_key).toString('base64')}`, FAILED);
      await expect401('Basic !!!', FAILED);
    });

    it('charge: 401 for an unknown key, a wrong secret and a wrong PIN', async () => {
      await expect401(basic(issueKey('sandbox', 'source_key').key, merchant.source.pin), FAILED);
      const forged = merchant.source.api_key.slice(0, -4) + (merchant.source.api_key.endsWith('AAAA') ? 'BBBB' : 'AAAA');
      await expect401(basic(forged, merchant.source.pin), FAILED);
      const wrongPin = merchant.source.pin === '00000000' ? '11111111' : '00000000';
      await expect401(basic(merchant.source.api_key, wrongPin), FAILED);
    });

    it('charge: 401 naming the right environment for a production key', async () => {
      await expect401(
        basic(issueKey('production', 'source_key').key, '12345678'),
        'this is a production credential; use it with the production environment (this is sandbox)',
      );
    });

    it('charge: 403 permission_denied for a tokenization token or a transfer key used as Basic credentials', async () => {
      for (const key of [merchant.source.tokenization_token, merchant.transfer_api_key]) {
        const response = await postCharge(t.app, basic(key, merchant.source.pin), chargeBody(nonce));
        assert.equal(response.statusCode, 403, response.body);
        assert.deepEqual(
          response.json(),
          refusalOfUnknownDialect('permission_denied', 'this credential is not a source API key; use a source API key and its PIN'),
        );
        const read = await getTransaction(t.app, basic(key, merchant.source.pin), 100000001);
        assert.equal(read.statusCode, 403, read.body);
      }
    });

    it('authenticates before validating: a bad body with no credential is 401, not 400', async () => {
      const response = await t.app.inject({ method: 'POST', url: '/api/v2/transactions/charge', payload: { amount: 'x' } });
      assert.equal(response.statusCode, 401);
      assert.deepEqual(response.json(), refusalOfUnknownDialect('authentication_error', FAILED));
    });

    it('tokens: 401 missing, malformed, unknown; 403 for a source key or transfer key', async () => {
      const missing = await t.app.inject({ method: 'POST', url: '/api/v2/tokens', payload: CARD });
      assert.equal(missing.statusCode, 401);
      assert.deepEqual(missing.json(), refusalOfUnknownDialect('authentication_error', FAILED));
      const malformed = await t.app.inject({ method: 'POST', url: '/api/v2/tokens', headers: { authorization: 'Token abc' }, payload: CARD });
      assert.equal(malformed.statusCode, 401);
      assert.deepEqual(malformed.json(), refusalOfUnknownDialect('authentication_error', FAILED));
      const unknown = await tokenizeRaw(t.app, issueKey('sandbox', 'tokenization_token').key, CARD);
      assert.equal(unknown.statusCode, 401);
      assert.deepEqual(unknown.json(), refusalOfUnknownDialect('authentication_error', FAILED));
      const live = await tokenizeRaw(t.app, issueKey('production', 'tokenization_token').key, CARD);
      assert.equal(live.statusCode, 401);
      assert.deepEqual(
        live.json(),
        refusalOfUnknownDialect('authentication_error', 'this is a production credential; use it with the production environment (this is sandbox)'),
      );
      for (const key of [merchant.source.api_key, merchant.transfer_api_key]) {
        const wrongKind = await tokenizeRaw(t.app, key, CARD);
        assert.equal(wrongKind.statusCode, 403, wrongKind.body);
        assert.deepEqual(wrongKind.json(), refusalOfUnknownDialect('permission_denied', 'only a tokenization token can tokenize cards'));
      }
    });

    it('tokens: 403 permission_denied for a valid source API key sent as Basic, whatever its PIN; 401 when the key is not valid', async () => {
      const tokenize = (authorization: string) => t.app.inject({ method: 'POST', url: '/api/v2/tokens', headers: { authorization }, payload: CARD });
      const wrongPin = merchant.source.pin === '00000000' ? '11111111' : '00000000';
      // A right and a wrong PIN answer alike, so this endpoint tells nothing about a PIN (docs/api-decisions.md section 13).
      for (const authorization of [basicOf(merchant), basic(merchant.source.api_key, wrongPin)]) {
        const response = await tokenize(authorization);
        assert.equal(response.statusCode, 403, response.body);
        assert.deepEqual(
          response.json(),
          refusalOfUnknownDialect('permission_denied', 'only a tokenization token can tokenize cards (Authorization: Bearer <tokenization token>)'),
        );
      }
      const transferKey = await tokenize(basic(merchant.transfer_api_key, merchant.source.pin));
      assert.equal(transferKey.statusCode, 403, transferKey.body);
      const refusals: Array<[string, string]> = [
        [basic(issueKey('sandbox', 'source_key').key, merchant.source.pin), FAILED],
        [
          basic(issueKey('production', 'source_key').key, '12345678'),
          'this is a production credential; use it with the production environment (this is sandbox)',
        ],
        [`Basic ${Buffer.from(merchant.source.api_key).toString('base64')}`, FAILED],
        ['Basic !!!', FAILED],
      ];
      for (const [authorization, message] of refusals) {
        const response = await tokenize(authorization);
        assert.equal(response.statusCode, 401, `${authorization}: ${response.body}`);
        assert.deepEqual(response.json(), refusalOfUnknownDialect('authentication_error', message));
      }
    });

    it('a credential of a revoked source fails (401) even when its own row was not revoked', async () => {
      const subject = await t.newMerchant();
      await revokeSource(deps(), { merchantId: subject.merchant_id, sourceId: subject.source.id });
      // A credential row left unrevoked on a revoked source, as a rotation interleaved with the revocation could leave it.
      await t.service.db.write((tx) => tx.run('UPDATE credentials SET revoked_at_ms = NULL WHERE source_id = ?', [subject.source.id]));
      const charge = await postCharge(t.app, basicOf(subject), chargeBody(nonce));
      assert.equal(charge.statusCode, 401);
      assert.deepEqual(charge.json(), refusalOfUnknownDialect('authentication_error', FAILED));
      const token = await tokenizeRaw(t.app, subject.source.tokenization_token, CARD);
      assert.equal(token.statusCode, 401);
      assert.deepEqual(token.json(), refusalOfUnknownDialect('authentication_error', FAILED));
    });

    it('a rotation racing a revocation of the same source leaves no working credential', async () => {
      const subject = await t.newMerchant();
      const [rotated, revoked] = await Promise.allSettled([
        rotateSource(deps(), { merchantId: subject.merchant_id, sourceId: subject.source.id }),
        revokeSource(deps(), { merchantId: subject.merchant_id, sourceId: subject.source.id }),
      ]);
      assert.equal(revoked.status, 'fulfilled');
      const keys = rotated.status === 'fulfilled' ? [rotated.value, subject.source] : [subject.source];
      for (const source of keys) {
        const charge = await postCharge(t.app, basic(source.api_key, source.pin), chargeBody(nonce));
        assert.equal(charge.statusCode, 401, charge.body);
        assert.deepEqual(charge.json(), refusalOfUnknownDialect('authentication_error', FAILED));
        const token = await tokenizeRaw(t.app, source.tokenization_token, CARD);
        assert.equal(token.statusCode, 401, token.body);
      }
    });

    it("rotating refuses a revoked source and another merchant's source", async () => {
      const subject = await t.newMerchant();
      await revokeSource(deps(), { merchantId: subject.merchant_id, sourceId: subject.source.id });
      await assert.rejects(rotateSource(deps(), { merchantId: subject.merchant_id, sourceId: subject.source.id }), {
        code: 'invalid_request',
        message: `source ${subject.source.id} is revoked`,
      });
      await assert.rejects(rotateSource(deps(), { merchantId: subject.merchant_id, sourceId: merchant.source.id }), {
        code: 'not_found',
        message: `source ${merchant.source.id} not found`,
      });
      await assert.rejects(revokeSource(deps(), { merchantId: subject.merchant_id, sourceId: merchant.source.id }), {
        code: 'not_found',
        message: `source ${merchant.source.id} not found`,
      });
      const still = await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant)));
      assert.equal(still.statusCode, 200, "the other merchant's source still works");
    });

    it('rotated credentials fail at once (401), the new ones work', async () => {
      const subject = await t.newMerchant();
      const subjectNonce = await nonceFor(t.app, subject);
      const rotated = await rotateSource(deps(), { merchantId: subject.merchant_id, sourceId: subject.source.id });
      const old = await postCharge(t.app, basicOf(subject), chargeBody(subjectNonce));
      assert.equal(old.statusCode, 401);
      assert.deepEqual(old.json(), refusalOfUnknownDialect('authentication_error', FAILED));
      const oldToken = await tokenizeRaw(t.app, subject.source.tokenization_token, CARD);
      assert.equal(oldToken.statusCode, 401);
      assert.deepEqual(oldToken.json(), refusalOfUnknownDialect('authentication_error', FAILED));
      // A nonce belongs to the source, not to a credential: it survives the rotation.
      const charged = await postCharge(t.app, basic(rotated.api_key, rotated.pin), chargeBody(subjectNonce));
      assert.equal(charged.statusCode, 200, charged.body);
      assert.equal(charged.json().status, 'Approved');
    });

    it('a revoked source fails at once (401) on every endpoint', async () => {
      const subject = await t.newMerchant();
      const subjectNonce = await nonceFor(t.app, subject);
      await revokeSource(deps(), { merchantId: subject.merchant_id, sourceId: subject.source.id });
      const charge = await postCharge(t.app, basicOf(subject), chargeBody(subjectNonce));
      assert.equal(charge.statusCode, 401);
      assert.deepEqual(charge.json(), refusalOfUnknownDialect('authentication_error', FAILED));
      const token = await tokenizeRaw(t.app, subject.source.tokenization_token, CARD);
      assert.equal(token.statusCode, 401);
      assert.deepEqual(token.json(), refusalOfUnknownDialect('authentication_error', FAILED));
    });
  });
}
