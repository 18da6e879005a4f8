// The SDK (packages/client) against the server it talks to: the same event
// types, a method for every operation of the OpenAPI document, and every
// field of every documented shape in the SDK's types. The SDK imports
// nothing of the server, so its types are written by hand; this test is
// what ties them to the server, and it fails naming what the SDK lacks.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EVENT_TYPES as SERVER_EVENT_TYPES } from '../../src/domain/webhooks.ts';
import { OPERATIONS } from '../../../client/src/operations.ts';
import { WIRE_FIELDS } from '../../../client/src/wire-fields.ts';
import { EVENT_TYPES as SDK_EVENT_TYPES } from '../../../client/src/webhooks.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

/**
 * Operations of the document the SDK deliberately has no method for. The
 * panel and the hosted card form are not in the document at all (they are
 * pages, not API operations).
 */
const OPERATIONS_NOT_IN_SDK: Readonly<Record<string, string>> = {
  getHealth: 'a liveness probe for load balancers and orchestrators, not for API callers',
  getReadiness: 'a readiness probe for load balancers and orchestrators, not for API callers',
  receiveProviderCallback: "where providers (Authorize.net, ...) send their webhooks, signed with the provider's key; not for API callers",
  receiveProviderCallbackPut: 'the same callback route taking PUT, as MTN MoMo may send; not for API callers',
};

/** Named schemas of the document the SDK keeps no field list for. */
const SHAPES_NOT_IN_SDK: Readonly<Record<string, string>> = {
  TransactionResult: 'a union of Transaction and DeclinedTransaction, each checked under its own name',
  CaptureResult: 'a union of Transaction, DeclinedTransaction and AcceptBlueAdjustCaptureResponse, each checked under its own name',
  RefundResult: 'a union of Transaction, DeclinedTransaction and AcceptBlueRefundResponse, each checked under its own name',
  VoidResult: 'a union of Transaction, DeclinedTransaction and AcceptBlueVoidResponse, each checked under its own name',
  ReversalResult: 'a union of Transaction, DeclinedTransaction and AcceptBlueReversalResponse, each checked under its own name',
  TransferStatusResponse: 'a union of the status envelope (around TransferStatus) and ExecuteTransferResponse, each checked by its parts',
  CallbackReceived: "the answer to a provider's callback, which the SDK never sends",
  PayinRefusal: 'a refusal in either dialect (shape C or accept.blue): the SDK throws it as a PayrailError',
  DuplicatePaymentMethodError: "a refusal: the SDK throws it as a PayrailError, the existing method's id in error.details.id",
  AcceptBlueDuplicatePaymentMethodError: "the accept.blue dialect's duplicate refusal; the SDK's source speaks the spec dialect (DuplicatePaymentMethodError)",
  WebhookEndpointDeleted: 'deleteWebhookEndpoint() answers nothing; the body is not read',
  WebhookCreateRequest: 'a union of WebhookEndpointCreateRequest and AcceptBlueWebhookCreateRequest, each checked under its own name',
  WebhookUpdateRequest: 'a union of WebhookEndpointUpdateRequest and AcceptBlueWebhookUpdateRequest, each checked under its own name',
  ListedWebhook: 'a union of WebhookEndpoint and AcceptBlueWebhook, each checked under its own name',
  SandboxActionResponse: 'the bare success envelope; the sandbox calls answer nothing',
  SandboxBatchCloseResponse: 'read field by field by sandbox.closeBatch() (batches, each a Batch checked under its own name)',
  TransactionRead: 'GET /api/v2/transactions/{id}: a union of TransactionResult (spec) and AcceptBlueTransaction, each checked under its own name',
  TransactionList: 'a union of lists of TransactionResult (spec) and of AcceptBlueTransaction, each checked under its own name',
  BatchRead: 'a union of Batch (spec) and AcceptBlueBatch, each checked under its own name',
  BatchListRead: 'a union of lists of Batch (spec) and of AcceptBlueBatch, each checked under its own name',
  SandboxScheduleRunResponse:
    'read field by field by sandbox.runSchedule() (charged, schedule, transaction: RecurringSchedule and Transaction checked under their own names)',
};

/** The SDK's sources that call the API: every operation of its table must be used in one of them. */
const SDK_CALLERS = ['client.ts'].map((file) => path.resolve(import.meta.dirname, '../../../client/src', file));

interface DocumentedOperation {
  readonly operationId?: string;
}
interface NamedSchema {
  readonly properties?: Record<string, unknown>;
}
interface Document {
  readonly paths: Record<string, Record<string, DocumentedOperation>>;
  readonly components: { readonly schemas: Record<string, NamedSchema> };
}

describe('the SDK covers the server', () => {
  let t: TestApp;
  let document: Document;

  before(async () => {
    t = await createTestApp('sqlite');
    const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(response.statusCode, 200);
    document = JSON.parse(response.body) as Document;
  });
  after(() => t.close());

  it('has the same event types as the server', () => {
    const sdk = new Set<string>(SDK_EVENT_TYPES);
    const server = new Set<string>(SERVER_EVENT_TYPES);
    assert.deepEqual(
      {
        'server event types the SDK lacks': [...server].filter((type) => !sdk.has(type)),
        'SDK event types the server lacks': [...sdk].filter((type) => !server.has(type)),
      },
      { 'server event types the SDK lacks': [], 'SDK event types the server lacks': [] },
    );
  });

  it('has a method for every operation of the OpenAPI document, at its method and path', () => {
    const problems: string[] = [];
    const documented = new Set<string>();
    for (const [template, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const id = operation.operationId ?? `${method.toUpperCase()} ${template}`;
        documented.add(id);
        if (id in OPERATIONS_NOT_IN_SDK) continue;
        const sdk = (OPERATIONS as Record<string, { method: string; path: string }>)[id];
        if (sdk === undefined) problems.push(`${method.toUpperCase()} ${template} (${id}): no SDK method`);
        else if (sdk.method !== method.toUpperCase() || sdk.path !== template)
          problems.push(`${id}: the server has ${method.toUpperCase()} ${template}, the SDK sends ${sdk.method} ${sdk.path}`);
      }
    }
    for (const id of Object.keys(OPERATIONS)) if (!documented.has(id)) problems.push(`${id}: the SDK calls it, the document has no such operation`);
    for (const id of Object.keys(OPERATIONS_NOT_IN_SDK))
      if (!documented.has(id)) problems.push(`${id}: allowed to be missing, but the document has no such operation`);
    assert.deepEqual(problems, []);
  });

  it('uses every operation of its table in a method (an unused entry would claim a method the SDK lacks)', () => {
    const source = SDK_CALLERS.map((file) => fs.readFileSync(file, 'utf8')).join('\n');
    // A method names its operation as OPERATIONS.<id>, or as '<id>' in a table of operations it picks from.
    const unused = Object.keys(OPERATIONS).filter((id) => !source.includes(`OPERATIONS.${id}`) && !source.includes(`'${id}'`));
    assert.deepEqual(unused, []);
  });

  it('types every field of every named schema of the document', () => {
    const problems: string[] = [];
    const sdkShapes = WIRE_FIELDS as Record<string, Record<string, true>>;
    for (const [name, schema] of Object.entries(document.components.schemas)) {
      if (name in SHAPES_NOT_IN_SDK) continue;
      const sdk = sdkShapes[name];
      if (sdk === undefined) {
        problems.push(`${name}: no SDK type (fields ${Object.keys(schema.properties ?? {}).join(', ')})`);
        continue;
      }
      const server = Object.keys(schema.properties ?? {});
      for (const field of server) if (!(field in sdk)) problems.push(`${name}.${field}: on the server, not in the SDK's type`);
      for (const field of Object.keys(sdk)) if (!server.includes(field)) problems.push(`${name}.${field}: in the SDK's type, not on the server`);
    }
    for (const name of Object.keys(sdkShapes))
      if (document.components.schemas[name] === undefined) problems.push(`${name}: the SDK types it, the document has no such schema`);
    for (const name of Object.keys(SHAPES_NOT_IN_SDK))
      if (document.components.schemas[name] === undefined) problems.push(`${name}: allowed to be missing, but the document has no such schema`);
    assert.deepEqual(problems, []);
  });
});
