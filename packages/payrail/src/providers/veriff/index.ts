// The Veriff KYC connector (behaviour.md section 18): PAYRAIL_KYC_PROVIDER=veriff.
// A SessionKycProvider: Payrail starts a verification session per receiver
// and keeps the decision Veriff reports. The files beside this one each do
// one job: client.ts the transport, signature.ts X-HMAC-SIGNATURE,
// decisions.ts Veriff's answers in Payrail's terms, operations.ts the calls,
// webhooks.ts the callbacks.
import type { SessionKycProvider } from '../kyc.ts';
import * as operations from './operations.ts';
import { CONNECTOR_NAME, type VeriffSettings } from './settings.ts';
import { webhookReceiver } from './webhooks.ts';

export type { VeriffSettings } from './settings.ts';

export function createVeriff(settings: VeriffSettings, context: { readonly nowMs?: () => number } = {}): SessionKycProvider {
  const timeoutMs = settings.callTimeoutMs;
  if (timeoutMs !== undefined && !(Number.isSafeInteger(timeoutMs) && timeoutMs > 0)) throw new Error('veriff: callTimeoutMs must be a positive integer');
  const ops: operations.OperationContext = { settings, nowMs: context.nowMs ?? Date.now };
  return {
    kind: 'sessions',
    name: CONNECTOR_NAME,
    ...(timeoutMs === undefined ? {} : { lookupTimeoutMs: timeoutMs }),
    start: (receiver, signal) => operations.start(ops, receiver.vendorData, signal),
    decision: (sessionId, signal) => operations.decision(ops, sessionId, signal),
    callbacks: webhookReceiver(settings.sharedSecret),
  };
}
