// The provider look-ups a transfer request waits on: is the receiver on the
// payout network, their KYC, the FX rate. Each is bounded by the look-up
// deadline (providers/deadline.ts), and a provider that throws or does not
// answer in time makes the request service_unavailable (503,
// behaviour.md section 16), not a 500. They all run before anything is
// written (execute asks its rate before its write, or inside it where the
// whole write rolls back), so the caller may simply retry.
import type { Corridor } from '../../domain/corridors.ts';
import { fail } from '../../errors.ts';
import { type LookupDeadline, lookupTimeoutMs, SharedCallDeadline } from '../../providers/deadline.ts';
import type { Providers } from '../../providers/index.ts';
import { RateUnavailable } from '../../providers/fx.ts';
import type { KycProvider, KycSession, KycSessionDecision, KycStatus, SessionKycProvider } from '../../providers/kyc.ts';
import { payoutNetworkOf } from './networks.ts';

/** One shared deadline per look-up timeout (providers/deadline.ts SharedCallDeadline says why). */
const sharedDeadlines = new Map<number, SharedCallDeadline>();

function deadlineOf(connector: LookupDeadline): SharedCallDeadline {
  const timeoutMs = lookupTimeoutMs(connector);
  let deadline = sharedDeadlines.get(timeoutMs);
  if (deadline === undefined) {
    deadline = new SharedCallDeadline(timeoutMs);
    sharedDeadlines.set(timeoutMs, deadline);
  }
  return deadline;
}

async function lookup<T>(connector: LookupDeadline, what: string, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  try {
    return await deadlineOf(connector).run(call);
  } catch (error) {
    // A connector's own refusal (no current rate) is Payrail's text, written to be shown.
    if (error instanceof RateUnavailable) return fail('service_unavailable', `${error.message}; nothing was written; retry later`);
    // The provider's own error text stays out of the answer: it may name hosts or carry the request.
    return fail('service_unavailable', `the ${what} did not answer; nothing was written; retry`);
  }
}

export function receiverOnNetwork(providers: Providers, phoneE164: string, corridor: Corridor): Promise<{ readonly registered: boolean }> {
  const network = payoutNetworkOf(providers, corridor);
  return lookup(network, 'payout network (receiver look-up)', (signal) => network.lookupReceiver(phoneE164, signal, corridor));
}

/**
 * The receiver's KYC from a look-up provider (asked at each request). A
 * provider working in sessions is never asked here: its receivers'
 * verification is what Payrail kept (kyc-sessions.ts receiverKycOf).
 */
export function receiverKyc(kyc: KycProvider, phoneE164: string): Promise<KycStatus | null> {
  return lookup(kyc, 'KYC provider', (signal) => kyc.lookup(phoneE164, signal));
}

/** Starts a receiver's verification session at a provider working in sessions, within the look-up deadline. */
export function startKycSession(kyc: SessionKycProvider, receiver: { readonly phoneE164: string; readonly vendorData: string }): Promise<KycSession> {
  return lookup(kyc, 'KYC provider', (signal) => kyc.start(receiver, signal));
}

/** A session's decision as the provider holds it now, within the look-up deadline. */
export function kycSessionDecision(kyc: SessionKycProvider, sessionId: string): Promise<KycSessionDecision> {
  return lookup(kyc, 'KYC provider', (signal) => kyc.decision(sessionId, signal));
}

export function fxRate(providers: Providers, corridor: Corridor): Promise<string> {
  const fx = providers.fx;
  return lookup(fx, `FX provider (${corridor.currency} rate)`, (signal) => fx.rate(corridor, signal));
}
