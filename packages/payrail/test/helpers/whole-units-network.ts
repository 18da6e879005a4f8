// A payout network connector module for tests of corridor routing: the
// sandbox simulator under another name that takes whole units only, needs a
// `region` in its corridors' payout_settings, and records what it was sent.
// Named in a corridors file's `payout_connector`, like a production network.
import type { Corridor } from '../../src/domain/corridors.ts';
import type { ProviderContext } from '../../src/providers/index.ts';
import type { PayoutNetwork, PayoutPollRequest, PayoutSubmission } from '../../src/providers/payout-network.ts';
import { SandboxPayoutNetwork } from '../../src/providers/sandbox/payout-network.ts';
import { memoryReceiverStates, SandboxReceivers } from '../../src/providers/sandbox/receivers.ts';

export const WHOLE_UNITS_NAME = 'whole-units';
export const seen = {
  submissions: [] as PayoutSubmission[],
  polls: [] as PayoutPollRequest[],
  lookups: [] as Array<{ phone: string; corridor: Corridor | undefined }>,
};

export function resetWholeUnitsNetwork(): void {
  seen.submissions.length = 0;
  seen.polls.length = 0;
  seen.lookups.length = 0;
}

export function create(context: ProviderContext): PayoutNetwork {
  const sandbox = new SandboxPayoutNetwork(new SandboxReceivers(memoryReceiverStates()), context.clock, context.sandboxDelayMs, context.publicUrl);
  return {
    name: WHOLE_UNITS_NAME,
    async lookupReceiver(phone, _signal, corridor) {
      seen.lookups.push({ phone, corridor });
      return sandbox.lookupReceiver(phone);
    },
    amountDecimals: () => 0,
    corridorProblems: (corridor) => (corridor.payoutSettings.region === undefined ? ['payout_settings.region is required'] : []),
    async submit(submission) {
      seen.submissions.push(submission);
      return sandbox.submit(submission);
    },
    async poll(request) {
      seen.polls.push(request);
      return sandbox.poll(request);
    },
  };
}
