// The pawaPay payout network connector (behaviour.md section 18):
// PAYRAIL_PAYOUT_NETWORK=pawapay, or a corridor's payout_connector "pawapay".
// The files beside this one each do one job: client.ts the transport,
// operations.ts the payout calls, codes.ts pawaPay's failure codes in
// Payrail's terms, corridor.ts a corridor's payout_settings, amounts.ts the
// amount text, signatures.ts and callbacks.ts the signed callbacks.
import type { Logger } from 'pino';
import type { PayoutNetwork } from '../payout-network.ts';
import { callbackReceiver } from './callbacks.ts';
import { amountDecimalsOf, corridorProblemsOf } from './corridor.ts';
import * as operations from './operations.ts';
import { CONNECTOR_NAME, LOOKUP_TIMEOUT_MS, type PawaPaySettings } from './settings.ts';

export type { PawaPaySettings } from './settings.ts';

export function createPawaPay(settings: PawaPaySettings, context: { readonly log: Logger }): PayoutNetwork {
  const timeoutMs = settings.callTimeoutMs;
  if (timeoutMs !== undefined && !(Number.isSafeInteger(timeoutMs) && timeoutMs > 0)) throw new Error('pawapay: callTimeoutMs must be a positive integer');
  const ops: operations.OperationContext = { settings, log: context.log };
  return {
    name: CONNECTOR_NAME,
    // It pays wallets only; a number without one is refused at check and execute.
    sendsInvitations: false,
    lookupTimeoutMs: LOOKUP_TIMEOUT_MS,
    lookupReceiver: (phoneE164, signal, corridor) => operations.lookupReceiver(ops, phoneE164, signal, corridor),
    amountDecimals: amountDecimalsOf,
    corridorProblems: corridorProblemsOf,
    submit: (submission) => operations.submit(ops, submission),
    poll: (request) => operations.poll(ops, request),
    callbacks: callbackReceiver(settings, context.log),
  };
}
