// The MTN MoMo payout network (behaviour.md section 18): MoMo's Open API,
// Disbursement product, chosen by PAYRAIL_PAYOUT_NETWORK=mtn-momo or a
// corridor's payout_connector. The files beside this one each do one job:
// client.ts the transport, token.ts the access token, wire.ts MoMo's
// shapes, corridor.ts the corridor's payout_settings and the amount,
// reasons.ts failure reasons in words, operations.ts the calls,
// callbacks.ts MoMo's unsigned callbacks.
import type { Logger } from 'pino';
import type { Corridor } from '../../domain/corridors.ts';
import type { Environment } from '../../domain/credentials.ts';
import { isLoopbackHost } from '../../config/provider-url.ts';
import type { PayoutNetwork } from '../payout-network.ts';
import { callbackReceiver } from './callbacks.ts';
import { amountDecimalsOf, corridorProblems } from './corridor.ts';
import * as operations from './operations.ts';
import { CALL_TIMEOUT_MS_DEFAULT, CONNECTOR_NAME, type MtnMomoSettings } from './settings.ts';
import { TokenCache } from './token.ts';

export type { MtnMomoSettings } from './settings.ts';
export { CONNECTOR_NAME as MTN_MOMO } from './settings.ts';

/** The connector, and the disbursement account's balance for operators (not part of PayoutNetwork). */
export interface MtnMomoNetwork extends PayoutNetwork {
  readonly name: string;
  balance(corridor: Corridor, signal?: AbortSignal): Promise<{ readonly availableBalance: string; readonly currency: string }>;
  /** Token requests made so far (tests check the cache with it). */
  tokenRequests(): number;
}

export interface MtnMomoContext {
  readonly log: Logger;
  /** Payrail's public base URL (PAYRAIL_PUBLIC_URL): callbacks go to <publicUrl>/providers/mtn-momo/callbacks. */
  readonly publicUrl: string;
  readonly environment: Environment;
  /** The clock of the token cache (tests move it). */
  readonly nowMs?: () => number;
}

/**
 * Where MoMo is asked to send callbacks, or null. MoMo cannot reach a
 * loopback address, so a public URL on one (the default when
 * PAYRAIL_PUBLIC_URL is unset) sends none, unless MoMo itself is a local
 * stand-in. Production MoMo calls back over https only.
 */
export function callbackUrlOf(publicUrl: string, momoUrl: string, environment: Environment): string | null {
  let url: URL;
  try {
    url = new URL(publicUrl);
  } catch {
    return null;
  }
  if (isLoopbackHost(url.hostname) && !isLoopbackHost(new URL(momoUrl).hostname)) return null;
  if (environment === 'production' && url.protocol !== 'https:') return null;
  return `${publicUrl.replace(/\/+$/, '')}/providers/${CONNECTOR_NAME}/callbacks`;
}

export function createMtnMomo(settings: MtnMomoSettings, context: MtnMomoContext): MtnMomoNetwork {
  const timeoutMs = settings.callTimeoutMs ?? CALL_TIMEOUT_MS_DEFAULT;
  if (!(Number.isSafeInteger(timeoutMs) && timeoutMs > 0)) throw new Error('mtn-momo: callTimeoutMs must be a positive integer');
  const tokens = new TokenCache(settings, timeoutMs, context.nowMs);
  const ops: operations.OperationContext = {
    settings,
    tokens,
    timeoutMs,
    callbackUrl: callbackUrlOf(context.publicUrl, settings.url, context.environment),
    // MTN's sandbox has one target environment; a production look-up must name its market through the corridor.
    defaultTargetEnvironment: context.environment === 'sandbox' ? 'sandbox' : null,
    log: context.log,
  };
  return {
    name: CONNECTOR_NAME,
    // It pays wallets only; a number without one is refused at check and execute.
    sendsInvitations: false,
    lookupReceiver: (phoneE164, signal, corridor) => operations.lookupReceiver(ops, phoneE164, signal ?? new AbortController().signal, corridor),
    amountDecimals: (corridor) => amountDecimalsOf(corridor),
    corridorProblems: (corridor) => corridorProblems(corridor),
    submit: (submission) => operations.submit(ops, submission),
    poll: (request) => operations.poll(ops, request),
    callbacks: callbackReceiver(),
    balance: (corridor, signal) => operations.balance(ops, corridor, signal ?? new AbortController().signal),
    tokenRequests: () => tokens.requests,
  };
}
