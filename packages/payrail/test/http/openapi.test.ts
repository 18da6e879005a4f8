// The OpenAPI document: it validates as OpenAPI 3.1, holds every operation of
// the specification with its credential and the error envelope of its API,
// the docs page works from local assets only, and the response validator that
// createTestApp installs on app.inject catches what contradicts the document.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ResponseValidator, validateInjectedResponses } from '../helpers/openapi.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import * as fixtures from '../../../client/test/fixtures.ts';

/** Every operation of the specification's endpoint table, plus tokenization (docs/api-decisions.md section 8) and the card lifecycle. */
const SPEC_OPERATIONS = [
  ['post', '/api/v2/transactions/charge', 'sourceBasic'],
  ['get', '/api/v2/transactions/{id}', 'sourceBasic'],
  ['post', '/api/v2/tokens', 'tokenizationToken'],
  ['post', '/api/checkTransfer', 'transferApiKey'],
  ['post', '/api/transfer', 'transferApiKey'],
  ['get', '/api/status/{id}', 'transferApiKey'],
  ['get', '/api/kyc/{account}', 'transferApiKey'],
  ['get', '/api/agent_balance', 'transferApiKey'],
  // The card transaction lifecycle (docs/api-decisions.md sections 10 and 14).
  ['post', '/api/v2/transactions/capture', 'sourceBasic'],
  ['post', '/api/v2/transactions/void', 'sourceBasic'],
  ['post', '/api/v2/transactions/refund', 'sourceBasic'],
  ['post', '/api/v2/transactions/reversal', 'sourceBasic'],
  ['post', '/api/v2/transactions/verify', 'sourceBasic'],
  ['get', '/api/v2/transactions', 'sourceBasic'],
  ['get', '/api/v2/batches', 'sourceBasic'],
  ['get', '/api/v2/batches/{id}', 'sourceBasic'],
  ['get', '/api/v2/batches/{id}/transactions', 'sourceBasic'],
  ['post', '/sandbox/batches/close', 'transferApiKey'],
  // Stored customers, saved cards and recurring schedules (docs/api-decisions.md section 15).
  ['post', '/api/v2/customers', 'sourceBasic'],
  ['get', '/api/v2/customers', 'sourceBasic'],
  ['get', '/api/v2/customers/{id}', 'sourceBasic'],
  ['patch', '/api/v2/customers/{id}', 'sourceBasic'],
  ['get', '/api/v2/customers/{id}/transactions', 'sourceBasic'],
  ['post', '/api/v2/customers/{id}/payment-methods', 'sourceBasic'],
  ['get', '/api/v2/customers/{id}/payment-methods', 'sourceBasic'],
  ['get', '/api/v2/payment-methods/{id}', 'sourceBasic'],
  ['patch', '/api/v2/payment-methods/{id}', 'sourceBasic'],
  ['post', '/api/v2/customers/{id}/recurring-schedules', 'sourceBasic'],
  ['get', '/api/v2/customers/{id}/recurring-schedules', 'sourceBasic'],
  ['get', '/api/v2/recurring-schedules/{id}', 'sourceBasic'],
  ['patch', '/api/v2/recurring-schedules/{id}', 'sourceBasic'],
  ['get', '/api/v2/recurring-schedules/{id}/transactions', 'sourceBasic'],
  ['post', '/sandbox/schedules/{id}/run', 'transferApiKey'],
  // accept.blue's added stored-data endpoints (behaviour.md section 16).
  ['post', '/api/v2/customers/create-from-transaction', 'sourceBasic'],
  ['get', '/api/v2/payment-methods', 'sourceBasic'],
  ['get', '/api/v2/recurring-schedules', 'sourceBasic'],
  ['get', '/api/v2/payment-methods/{id}/recurring-schedules', 'sourceBasic'],
] as const;

/** Creations answer 201 (behaviour.md section 16). */
const CREATIONS = [
  '/api/v2/customers',
  '/api/v2/customers/create-from-transaction',
  '/api/v2/customers/{id}/payment-methods',
  '/api/v2/customers/{id}/recurring-schedules',
] as const;

/** Deletions answer 204 with no body (docs/api-decisions.md section 15). */
const DELETIONS = ['/api/v2/customers/{id}', '/api/v2/payment-methods/{id}', '/api/v2/recurring-schedules/{id}'] as const;

interface Operation {
  security?: Array<Record<string, string[]>>;
  responses: Record<string, { content?: { 'application/json'?: { schema?: Record<string, unknown> } } }>;
}
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

for (const kind of STORE_KINDS) {
  describe(`OpenAPI document (${kind})`, () => {
    let t: TestApp;
    let document: Document;

    before(async () => {
      t = await createTestApp(kind);
      const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      document = JSON.parse(response.body) as Document;
    });
    after(() => t.close());

    it('validates as OpenAPI 3.1', async () => {
      const validator = new Validator();
      const result = await validator.validate(structuredClone(document) as never);
      assert.deepEqual(result.errors ?? [], []);
      assert.equal(result.valid, true);
      assert.equal(validator.version, '3.1');
      assert.equal(document.openapi, '3.1.0');
    });

    it('holds every operation of the specification with its credential and a success schema (201 for creations)', () => {
      for (const [method, path, scheme] of SPEC_OPERATIONS) {
        const operation = document.paths[path]?.[method];
        assert.ok(operation !== undefined, `${method.toUpperCase()} ${path} is missing from the document`);
        assert.deepEqual(operation.security, [{ [scheme]: [] }], `${method} ${path}`);
        // Creations of stored payment data answer 201 (behaviour.md section 16).
        const status = CREATIONS.includes(path as (typeof CREATIONS)[number]) && method === 'post' ? '201' : '200';
        assert.ok(operation.responses[status]?.content?.['application/json']?.schema !== undefined, `${method} ${path} has no ${status} schema`);
      }
    });

    it('names every request and success body of the APIs (a schema in components, or a list of one) for client generators', () => {
      type Schema = { $ref?: string; type?: string; items?: Schema };
      const named = (schema: Schema | undefined) =>
        schema === undefined || schema.$ref !== undefined || (schema.type === 'array' && schema.items?.$ref !== undefined);
      const unnamed: string[] = [];
      for (const [path, operations] of Object.entries(document.paths)) {
        if (!path.startsWith('/api/') && !path.startsWith('/sandbox/')) continue;
        for (const [method, operation] of Object.entries(operations)) {
          const op = operation as unknown as {
            requestBody?: { content?: Record<string, { schema?: Schema }> };
            responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
          };
          if (!named(op.requestBody?.content?.['application/json']?.schema)) unnamed.push(`${method} ${path} request`);
          for (const [status, response] of Object.entries(op.responses)) {
            if (status.startsWith('2') && !named(response.content?.['application/json']?.schema)) unnamed.push(`${method} ${path} ${status}`);
          }
        }
      }
      assert.deepEqual(unnamed, []);
    });

    it('documents deletions as 204 without a body, and a duplicate card as 409 naming the existing id (accept.blue dialect: the method whole)', () => {
      for (const path of DELETIONS) {
        const operation = document.paths[path]?.delete;
        assert.ok(operation !== undefined, `DELETE ${path} is missing`);
        assert.deepEqual(operation.security, [{ sourceBasic: [] }]);
        assert.ok(operation.responses['204'] !== undefined, `DELETE ${path} documents no 204`);
        assert.equal(operation.responses['204']?.content, undefined);
      }
      const duplicate = document.paths['/api/v2/customers/{id}/payment-methods']!.post!.responses['409']?.content?.['application/json']?.schema as {
        anyOf?: Array<{ $ref?: string }>;
      };
      assert.deepEqual(
        duplicate?.anyOf?.slice(0, 2).map((member) => member.$ref),
        ['#/components/schemas/DuplicatePaymentMethodError', '#/components/schemas/AcceptBlueDuplicatePaymentMethodError'],
      );
      const components = (document as unknown as { components: { schemas: Record<string, { properties?: Record<string, unknown> }> } }).components;
      assert.deepEqual(Object.keys(components.schemas.DuplicatePaymentMethodError?.properties ?? {}), ['error', 'id']);
    });

    it('documents the errors every operation shares in the envelope of its API, and its own codes only', () => {
      for (const [path, operations] of Object.entries(document.paths)) {
        if (!path.startsWith('/api/')) continue;
        for (const [method, operation] of Object.entries(operations)) {
          for (const status of ['400', '401', '403', '429', '500', '503']) {
            const schema = operation.responses[status]?.content?.['application/json']?.schema;
            assert.ok(schema !== undefined, `${method} ${path} does not document ${status}`);
            if (path.startsWith('/api/v2/')) {
              // Each dialect's refusal (docs/acceptblue-compatibility.md): shape C, accept.blue's body, and both before the caller is known.
              const variants = (schema.anyOf as Array<{ properties: Record<string, unknown> }>).map((variant) => Object.keys(variant.properties));
              assert.deepEqual(
                variants,
                [
                  ['error'],
                  ['version', 'status', 'status_code', 'error_message', 'error_code', 'error_details'],
                  ['error', 'version', 'status', 'status_code', 'error_message', 'error_code', 'error_details'],
                ],
                `${method} ${path} ${status}`,
              );
            } else assert.deepEqual(Object.keys(schema.properties as Record<string, unknown>).sort(), ['error', 'success'], `${method} ${path} ${status}`);
          }
        }
      }
      // Each operation lists its own refusals, not the whole catalogue's.
      const codesOf = (method: string, path: string, status: string) => {
        type ErrorBody = { properties: { error: { properties: { code: { enum: string[] } } } } };
        const schema = document.paths[path]![method]!.responses[status]?.content?.['application/json']?.schema as
          | (ErrorBody & { anyOf?: ErrorBody[] })
          | undefined;
        return (schema?.anyOf?.[0] ?? schema)?.properties.error.properties.code.enum ?? [];
      };
      assert.ok(codesOf('post', '/api/transfer', '400').includes('insufficient_funds'));
      assert.ok(!codesOf('post', '/api/transfer', '400').includes('invalid_nonce'), 'execute transfer never answers invalid_nonce');
      assert.deepEqual(codesOf('get', '/api/agent_balance', '404'), []);
      assert.deepEqual(codesOf('get', '/api/v2/transactions/{id}', '404'), ['not_found']);
    });

    it('gives every operation an operationId of its own and a summary', () => {
      const seen = new Set<string>();
      for (const [path, operations] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(operations) as Array<[string, Operation & { operationId?: string; summary?: string }]>) {
          assert.ok(operation.operationId, `${method} ${path} has no operationId`);
          assert.ok(!seen.has(operation.operationId), `operationId ${operation.operationId} is used twice`);
          seen.add(operation.operationId);
          assert.ok(operation.summary, `${method} ${path} has no summary`);
        }
      }
    });

    it('leaves the panel, the hosted form and the docs page itself out', () => {
      for (const path of Object.keys(document.paths)) {
        assert.match(path, /^(\/api\/|\/sandbox\/|\/providers\/\{connector\}\/callbacks$|\/healthz$|\/readyz$)/, path);
      }
    });

    it('documents provider callbacks: no credential, tagged Providers, their refusals in shape C', () => {
      const operation = document.paths['/providers/{connector}/callbacks']?.post as (Operation & { tags?: string[] }) | undefined;
      assert.ok(operation !== undefined, 'POST /providers/{connector}/callbacks is missing');
      assert.deepEqual([operation.security, operation.tags], [[], ['Providers']]);
      for (const [status, code] of [
        ['401', 'invalid_signature'],
        ['404', 'not_found'],
        ['413', 'payload_too_large'],
        ['429', 'rate_limited'],
      ] as const) {
        const schema = operation.responses[status]?.content?.['application/json']?.schema as
          | { properties: { error: { properties: { code: { enum: string[] } } } } }
          | undefined;
        assert.deepEqual(schema?.properties.error.properties.code.enum, [code], status);
      }
    });

    it('serves the docs page and its assets from the installed package, calling no outside host', async () => {
      const page = await t.app.inject({ method: 'GET', url: '/docs' });
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      const scripts = [...page.body.matchAll(/<(?:script|link)[^>]+(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      assert.ok(scripts.length >= 3, `expected the page's scripts and styles, got ${scripts.join(', ')}`);
      for (const asset of scripts) {
        assert.doesNotMatch(asset, /^(https?:)?\/\//, `${asset} is not served locally`);
        const url = new URL(asset, 'http://localhost/docs/').pathname;
        const response = await t.app.inject({ method: 'GET', url });
        assert.equal(response.statusCode, 200, url);
      }
      const initializer = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
      assert.match(initializer.body, /"validatorUrl":null/);
      const json = await t.app.inject({ method: 'GET', url: '/docs/json' });
      assert.deepEqual(JSON.parse(json.body), document);
    });

    it('checks injected responses: a documented reply passes, a refusal passes in its envelope', async () => {
      const merchant = await t.newMerchant({ fundCents: 1234 });
      const ok = await t.app.inject({ method: 'GET', url: '/api/agent_balance', headers: { 'api-key': merchant.transfer_api_key } });
      assert.equal(ok.statusCode, 200);
      const refused = await t.app.inject({ method: 'GET', url: '/api/agent_balance' });
      assert.equal(refused.statusCode, 401);
    });

    it('makes app.inject throw on a response that contradicts the document', async () => {
      const strict = await createTestApp(kind, { validateResponses: false });
      try {
        const merchant = await strict.newMerchant({ fundCents: 1 });
        // A document claiming the balance is a string: the real reply must now be refused.
        const altered = structuredClone(document) as unknown as Document & { components: { schemas: Record<string, { properties: unknown }> } };
        assert.deepEqual(altered.paths['/api/agent_balance']!.get!.responses['200']!.content!['application/json']!.schema, {
          $ref: '#/components/schemas/BalanceResponse',
        });
        const schema = altered.components.schemas.BalanceResponse!;
        (schema.properties as Record<string, { properties: Record<string, unknown> }>).balance!.properties.balance = { type: 'string' };
        validateInjectedResponses(strict.app, altered);
        await assert.rejects(
          strict.app.inject({ method: 'GET', url: '/api/agent_balance', headers: { 'api-key': merchant.transfer_api_key } }),
          /GET \/api\/agent_balance -> 200: body does not match the OpenAPI document:\n {2}\/balance\/balance must be string/,
        );
      } finally {
        await strict.close();
      }
    });

    it("matches the SDK's recorded responses, so the SDK's unit tests speak the server's wire format", () => {
      const validator = new ResponseValidator(document);
      const json = { 'content-type': 'application/json' };
      const recorded: Array<[string, string, number, unknown]> = [
        ['GET', '/api/agent_balance', 200, fixtures.balance(125_000, 50_000)],
        ['GET', '/api/kyc/254712340002', 200, fixtures.kyc(false, '100.00', 'https://sandbox.payrail.test/kyc/abc')],
        ['GET', '/api/kyc/254712345678', 200, fixtures.kyc(true, '3000.00', '')],
        ['GET', '/api/kyc/254712340003', 404, fixtures.failure('account_not_found', 'no account')],
        ['POST', '/api/checkTransfer', 200, fixtures.check('unregistered')],
        ['POST', '/api/checkTransfer', 400, fixtures.failure('kyc_not_verified', 'receiver limit is 100.00')],
        ['POST', '/api/transfer', 200, fixtures.executed('1001')],
        ['POST', '/api/transfer', 400, fixtures.failure('duplicate_transfer', 'transfer id 1001 already used')],
        ['POST', '/api/transfer', 500, fixtures.failure('internal_server_error', 'Server error; retry')],
        ['GET', '/api/status/1001', 200, fixtures.status('1001', 60, 0, 1)],
        ['GET', '/api/status/1001', 200, fixtures.status('1001', 0, 9, 0, [{ name: 'waitingFor', value: 'invitation' }])],
        ['GET', '/api/status/999', 200, fixtures.statusUnknown('999')],
        ['GET', '/api/agent_balance', 401, fixtures.failure('authentication_error', 'invalid API-KEY')],
        ['POST', '/api/v2/tokens', 200, fixtures.nonce],
        ['POST', '/api/v2/tokens', 400, fixtures.rejected('invalid_card', 'card_number fails the Luhn check')],
        ['POST', '/api/v2/transactions/charge', 200, fixtures.chargeApproved(4242, 25.5)],
        ['POST', '/api/v2/transactions/charge', 200, fixtures.chargeApproved(4242, 25.5, 'Pending', 'P')],
        ['POST', '/api/v2/transactions/charge', 200, fixtures.chargeDeclined(4243, 25.5, 'insufficient_funds', 'Card lacks funds')],
        ['POST', '/api/v2/transactions/charge', 400, fixtures.rejected('invalid_nonce', 'nonce already used')],
        ['POST', '/api/v2/transactions/charge', 400, fixtures.rejected('idempotency_key_reused', 'used with another body')],
        ['GET', '/api/v2/transactions/4242', 404, fixtures.rejected('not_found', 'no charge 4242')],
        ['POST', '/sandbox/kyc/254712340002/verify', 200, { success: true, error: '' }],
        ['POST', '/api/v2/webhooks', 200, fixtures.webhookEndpointWithSecret()],
        ['GET', '/api/v2/webhooks', 200, [fixtures.webhookEndpoint()]],
        ['PATCH', '/api/v2/webhooks/we_0123456789abcdef', 200, fixtures.webhookEndpoint()],
        ['POST', '/api/v2/webhooks/we_0123456789abcdef/rotate', 200, fixtures.webhookEndpointWithSecret()],
        ['DELETE', '/api/v2/webhooks/we_0123456789abcdef', 200, { id: 'we_0123456789abcdef', deleted: true }],
        ['GET', '/api/v2/events', 200, fixtures.eventPage(true)],
        ['GET', '/api/v2/events/evt_42', 200, fixtures.transferEvent()],
        ['POST', '/api/v2/events/evt_42/resend', 200, { id: 'evt_42', deliveries: 2 }],
        ['GET', '/api/v2/events/evt_7', 404, fixtures.rejected('not_found', 'event evt_7 not found')],
      ];
      for (const [method, url, statusCode, body] of recorded) {
        validator.check(method, url, { statusCode, headers: json, body: JSON.stringify(body) });
      }
    });

    describe('response validator', () => {
      let validator: ResponseValidator;
      before(() => {
        validator = new ResponseValidator(document);
      });
      const json = { 'content-type': 'application/json; charset=utf-8' };

      it('matches concrete paths to templates, static paths first', () => {
        assert.equal(validator.templateOf('/api/v2/transactions/42'), '/api/v2/transactions/{id}');
        assert.equal(validator.templateOf('/api/v2/transactions/charge'), '/api/v2/transactions/charge');
        assert.equal(validator.templateOf('/dashboard/login'), undefined);
      });

      it('refuses a body that breaks the schema', () => {
        const body = JSON.stringify({ success: true, error: '', balance: { balance: '12.34', overdraft: 0 } });
        assert.throws(() => validator.check('GET', '/api/agent_balance', { statusCode: 200, headers: json, body }), /balance\/balance must be integer/);
      });

      it('refuses an error body outside its envelope or with a code the catalogue does not have', () => {
        const shapeC = JSON.stringify({ error: { code: 'authentication_error', message: 'no key' } });
        assert.throws(() => validator.check('GET', '/api/agent_balance', { statusCode: 401, headers: json, body: shapeC }), /does not match/);
        const unknownCode = JSON.stringify({ success: 'false', error: { code: 'oops', message: 'x' } });
        assert.throws(() => validator.check('GET', '/api/agent_balance', { statusCode: 400, headers: json, body: unknownCode }), /allowed values/);
        const booleanFalse = JSON.stringify({ success: false, error: { code: 'invalid_request', message: 'x' } });
        assert.throws(() => validator.check('GET', '/api/agent_balance', { statusCode: 400, headers: json, body: booleanFalse }), /does not match/);
      });

      it('refuses an undocumented status and a body that is not JSON', () => {
        assert.throws(() => validator.check('GET', '/api/agent_balance', { statusCode: 418, headers: json, body: '{}' }), /status 418 is not documented/);
        assert.throws(
          () => validator.check('GET', '/api/agent_balance', { statusCode: 200, headers: { 'content-type': 'text/html' }, body: '<p>' }),
          /documented as application\/json/,
        );
      });

      it('lets requests outside the document pass', () => {
        validator.check('GET', '/dashboard/login', { statusCode: 200, headers: { 'content-type': 'text/html' }, body: '<p>' });
        validator.check('DELETE', '/api/agent_balance', { statusCode: 404, headers: json, body: '{}' });
      });
    });
  });
}
