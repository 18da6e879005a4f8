// Each configured connector behind its own circuit breaker (breaker.ts): the
// calls that go to the provider pass through the breaker; what a connector
// answers locally (its name, deadlines, a callback's signature check, an
// invitation link) passes straight through. The wrapped connector keeps the
// interface it had, so the flows never know a breaker is there, except the
// few request paths that ask breakerOf() before writing anything.
import type { Logger } from 'pino';
import type { AchNetwork } from './ach-network.ts';
import { breakerSettingsOf, type BreakerTuning, ConnectorBreaker } from './breaker.ts';
import type { CardProcessor } from './card-processor.ts';
import type { ProcessorSettlements } from './card-settlements.ts';
import type { FxProvider } from './fx.ts';
import type { Corridor } from '../domain/corridors.ts';
import type { KycConnector, KycProvider, SessionKycProvider } from './kyc.ts';
import type { PayoutNetwork } from './payout-network.ts';

const breakers = new WeakMap<object, ConnectorBreaker>();

/** The breaker in front of `connector`, or null when it has none (the sandbox simulators). */
export function breakerOf(connector: object): ConnectorBreaker | null {
  return breakers.get(connector) ?? null;
}

function breakerFor(slot: string, connector: object, log: Logger | undefined): ConnectorBreaker {
  const name = (connector as { name?: unknown }).name;
  const label = typeof name === 'string' && name !== '' ? `${slot} ${name.slice(0, 40)}` : slot;
  return new ConnectorBreaker(label, breakerSettingsOf(connector as BreakerTuning), log);
}

function registered<T extends object>(wrapped: T, breaker: ConnectorBreaker): T {
  breakers.set(wrapped, breaker);
  return wrapped;
}

/**
 * The processor's settlement reads (reconciliation, one long call a day) go
 * through a breaker of their own, found by breakerOf(wrapped.settlements):
 * on the charges' breaker such a read could be the trial of a half-open
 * breaker, holding every charge back (503) for as long as it runs, and its
 * failures would count against the charges.
 */
export function cardProcessorWithBreaker(processor: CardProcessor, log?: Logger): CardProcessor {
  const breaker = breakerFor('card processor', processor, log);
  const settlements: ProcessorSettlements | undefined =
    processor.settlements === undefined ? undefined : settlementsWithBreaker(processor.settlements, processor, log);
  return registered(
    {
      name: processor.name,
      ...(processor.callTimeoutMs === undefined ? {} : { callTimeoutMs: processor.callTimeoutMs }),
      // A signature check is local work, not a call to the processor: callbacks are read while its API is down.
      ...(processor.callbacks === undefined ? {} : { callbacks: processor.callbacks }),
      ...(settlements === undefined ? {} : { settlements }),
      authorize: (request) => breaker.call(request.signal, () => processor.authorize(request)),
      poll: (request) => breaker.call(request.signal, () => processor.poll(request)),
      capture: (request) => breaker.call(request.signal, () => processor.capture(request)),
      voidCharge: (request) => breaker.call(request.signal, () => processor.voidCharge(request)),
      refund: (request) => breaker.call(request.signal, () => processor.refund(request)),
      verify: (request) => breaker.call(request.signal, () => processor.verify(request)),
      credit: (request) => breaker.call(request.signal, () => processor.credit(request)),
    },
    breaker,
  );
}

function settlementsWithBreaker(settlements: ProcessorSettlements, processor: CardProcessor, log: Logger | undefined): ProcessorSettlements {
  const breaker = breakerFor('card processor settlements', processor, log);
  return registered({ settledBatches: (request) => breaker.call(request.signal, () => settlements.settledBatches(request)) }, breaker);
}

export function payoutNetworkWithBreaker(network: PayoutNetwork, log?: Logger): PayoutNetwork {
  const breaker = breakerFor(network.name === undefined ? 'payout network' : `payout network ${network.name}`, network, log);
  return registered(
    {
      ...(network.name === undefined ? {} : { name: network.name }),
      ...(network.lookupTimeoutMs === undefined ? {} : { lookupTimeoutMs: network.lookupTimeoutMs }),
      ...(network.callbacks === undefined ? {} : { callbacks: network.callbacks }),
      ...(network.sendsInvitations === undefined ? {} : { sendsInvitations: network.sendsInvitations }),
      lookupReceiver: (phoneE164, signal, corridor) => breaker.call(signal, () => network.lookupReceiver(phoneE164, signal, corridor)),
      // Pure answers from the connector's own rules: nothing to guard.
      ...(network.amountDecimals === undefined ? {} : { amountDecimals: (corridor: Corridor) => network.amountDecimals!(corridor) }),
      ...(network.corridorProblems === undefined ? {} : { corridorProblems: (corridor: Corridor) => network.corridorProblems!(corridor) }),
      submit: (submission) => breaker.call(submission.signal, () => network.submit(submission)),
      poll: (request) => breaker.call(request.signal, () => network.poll(request)),
      ...(network.invitationUrl === undefined ? {} : { invitationUrl: (phoneE164: string) => network.invitationUrl!(phoneE164) }),
      ...(network.acceptInvitation === undefined
        ? {}
        : { acceptInvitation: (phoneE164: string) => breaker.call(undefined, () => network.acceptInvitation!(phoneE164)) }),
    },
    breaker,
  );
}

export function kycWithBreaker(kyc: KycConnector, log?: Logger): KycConnector {
  return kyc.kind === 'sessions' ? sessionKycWithBreaker(kyc, log) : lookupKycWithBreaker(kyc, log);
}

function lookupKycWithBreaker(kyc: KycProvider, log?: Logger): KycProvider {
  const breaker = breakerFor('KYC provider', kyc, log);
  return registered(
    {
      ...(kyc.name === undefined ? {} : { name: kyc.name }),
      ...(kyc.lookupTimeoutMs === undefined ? {} : { lookupTimeoutMs: kyc.lookupTimeoutMs }),
      ...(kyc.callbacks === undefined ? {} : { callbacks: kyc.callbacks }),
      invitedLimitCents: kyc.invitedLimitCents,
      lookup: (phoneE164, signal) => breaker.call(signal, () => kyc.lookup(phoneE164, signal)),
      ...(kyc.completeVerification === undefined
        ? {}
        : { completeVerification: (phoneE164: string) => breaker.call(undefined, () => kyc.completeVerification!(phoneE164)) }),
    },
    breaker,
  );
}

/** Starting a session and reading a decision go to the provider; the webhook's signature check is local work. */
function sessionKycWithBreaker(kyc: SessionKycProvider, log?: Logger): SessionKycProvider {
  const breaker = breakerFor('KYC provider', kyc, log);
  return registered(
    {
      kind: 'sessions',
      name: kyc.name,
      ...(kyc.lookupTimeoutMs === undefined ? {} : { lookupTimeoutMs: kyc.lookupTimeoutMs }),
      ...(kyc.callbacks === undefined ? {} : { callbacks: kyc.callbacks }),
      start: (receiver, signal) => breaker.call(signal, () => kyc.start(receiver, signal)),
      decision: (sessionId, signal) => breaker.call(signal, () => kyc.decision(sessionId, signal)),
    },
    breaker,
  );
}

export function fxWithBreaker(fx: FxProvider, log?: Logger): FxProvider {
  const breaker = breakerFor('FX provider', fx, log);
  return registered(
    {
      ...(fx.lookupTimeoutMs === undefined ? {} : { lookupTimeoutMs: fx.lookupTimeoutMs }),
      rate: (corridor, signal) => breaker.call(signal, () => fx.rate(corridor, signal)),
    },
    breaker,
  );
}

/**
 * The ACH network's calls (submit, void, status) behind a breaker of their
 * own: a card processor that also serves as the ACH network (authorize-net)
 * keeps two breakers, so a slow eCheck status sweep never holds charges back.
 * A call the open breaker refuses was never sent: the caller's unknown
 * outcome is then simply asked again later.
 */
export function achNetworkWithBreaker(network: AchNetwork, log?: Logger): AchNetwork {
  const breaker = breakerFor('ACH network', network, log);
  return registered(
    {
      name: network.name,
      ...(network.callTimeoutMs === undefined ? {} : { callTimeoutMs: network.callTimeoutMs }),
      returnWatchMs: network.returnWatchMs,
      ...(network.resendWindowMs === undefined ? {} : { resendWindowMs: network.resendWindowMs }),
      submit: (submission) => breaker.call(submission.signal, () => network.submit(submission)),
      voidEntry: (query) => breaker.call(query.signal, () => network.voidEntry(query)),
      status: (query) => breaker.call(query.signal, () => network.status(query)),
    },
    breaker,
  );
}
