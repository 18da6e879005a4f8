// The Authorize.net card processor connector (behaviour.md section 18):
// PAYRAIL_CARD_PROCESSOR=authorize-net. The files beside this one each do
// one job: client.ts the transport, requests.ts the request bodies,
// responses.ts and codes.ts the answers in Payrail's terms, operations.ts the
// CardProcessor calls, webhooks.ts the callbacks, settlements.ts the
// reconciliation reads; echeck.ts is the same connector as an ACH network
// (PAYRAIL_ACH_NETWORK=authorize-net), sharing the transport and settings.
import type { Logger } from 'pino';
import type { CardProcessor } from '../card-processor.ts';
import * as operations from './operations.ts';
import { type AuthorizeNetSettings, CONNECTOR_NAME, DUPLICATE_WINDOW_SECONDS } from './settings.ts';
import { settlementsOf } from './settlements.ts';
import { webhookReceiver } from './webhooks.ts';

export type { AuthorizeNetSettings } from './settings.ts';
export { createAuthorizeNetEcheck } from './echeck.ts';

export function createAuthorizeNet(settings: AuthorizeNetSettings, context: { readonly log: Logger }): CardProcessor {
  const timeoutMs = settings.callTimeoutMs;
  if (timeoutMs !== undefined && !(Number.isSafeInteger(timeoutMs) && timeoutMs > 0))
    throw new Error('authorize-net: callTimeoutMs must be a positive integer');
  const ops: operations.OperationContext = { settings, log: context.log };
  return {
    name: CONNECTOR_NAME,
    ...(timeoutMs === undefined ? {} : { callTimeoutMs: timeoutMs }),
    // A re-send is recognised as the first request only within the duplicate window it carries.
    resendWindowMs: DUPLICATE_WINDOW_SECONDS * 1000,
    authorize: (request) => operations.authorize(ops, request),
    poll: (request) => operations.poll(ops, request),
    capture: (request) => operations.capture(ops, request),
    voidCharge: (request) => operations.voidCharge(ops, request),
    refund: (request) => operations.refund(ops, request),
    verify: (request) => operations.verify(ops, request),
    credit: (request) => operations.credit(ops, request),
    callbacks: webhookReceiver(settings.signatureKey),
    settlements: settlementsOf(settings),
  };
}
