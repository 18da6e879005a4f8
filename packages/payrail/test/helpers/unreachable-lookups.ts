// One connector module for tests of look-ups that fail: loaded as the payout
// network, the KYC provider and the FX provider at once (PAYRAIL_PAYOUT_NETWORK,
// PAYRAIL_KYC_PROVIDER, PAYRAIL_FX_PROVIDER), it answers as the sandbox does
// unless told that a receiver's (or a currency's) next look-ups throw, as a
// refused connection does, or hang and ignore their abort signal, as a dead
// connection does. It declares a short look-up deadline (LOOKUP_DEADLINE_MS),
// so Payrail gives up on a hung look-up quickly and the tests never wait long.
import type { Corridor } from '../../src/domain/corridors.ts';
import type { FxProvider } from '../../src/providers/fx.ts';
import type { ProviderContext } from '../../src/providers/index.ts';
import type { KycProvider, KycStatus } from '../../src/providers/kyc.ts';
import type { PayoutNetwork, PayoutPollRequest, PayoutSubmission } from '../../src/providers/payout-network.ts';
import { SandboxFx } from '../../src/providers/sandbox/fx.ts';
import { SandboxKyc } from '../../src/providers/sandbox/kyc.ts';
import { SandboxPayoutNetwork } from '../../src/providers/sandbox/payout-network.ts';
import { memoryReceiverStates, SandboxReceivers } from '../../src/providers/sandbox/receivers.ts';

/** How long Payrail waits for this connector's look-ups. */
export const LOOKUP_DEADLINE_MS = 50;

export type Trouble = 'throw' | 'hang';

/** What the next look-ups do instead of answering: by receiver phone (E.164) for the network and KYC, by currency for FX. */
export const troubles = {
  receiver: new Map<string, Trouble>(),
  kyc: new Map<string, Trouble>(),
  fx: new Map<string, Trouble>(),
};

/** Look-ups received, by kind, hung or not. */
export const lookups = { receiver: 0, kyc: 0, fx: 0 };

export function resetUnreachableLookups(): void {
  for (const map of Object.values(troubles)) map.clear();
  lookups.receiver = 0;
  lookups.kyc = 0;
  lookups.fx = 0;
}

function misbehave(trouble: Trouble | undefined): Promise<never> | null {
  if (trouble === 'throw') return Promise.reject(Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:443'), { code: 'ECONNREFUSED' }));
  if (trouble === 'hang') return new Promise<never>(() => undefined);
  return null;
}

export function create(context: ProviderContext): PayoutNetwork & KycProvider & FxProvider {
  const receivers = new SandboxReceivers(memoryReceiverStates());
  const network = new SandboxPayoutNetwork(receivers, context.clock, context.sandboxDelayMs, context.publicUrl);
  const kyc = new SandboxKyc(receivers, context.clock, context.publicUrl);
  const fx = new SandboxFx();
  return {
    lookupTimeoutMs: LOOKUP_DEADLINE_MS,
    invitedLimitCents: kyc.invitedLimitCents,
    lookupReceiver(phoneE164: string) {
      lookups.receiver += 1;
      return misbehave(troubles.receiver.get(phoneE164)) ?? network.lookupReceiver(phoneE164);
    },
    lookup(phoneE164: string): Promise<KycStatus | null> {
      lookups.kyc += 1;
      return misbehave(troubles.kyc.get(phoneE164)) ?? kyc.lookup(phoneE164);
    },
    rate(corridor: Corridor) {
      lookups.fx += 1;
      return misbehave(troubles.fx.get(corridor.currency)) ?? fx.rate(corridor);
    },
    submit: (submission: PayoutSubmission) => network.submit(submission),
    poll: (request: PayoutPollRequest) => network.poll(request),
  };
}
