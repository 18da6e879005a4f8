// A payout network connector module for tests of lost and unknown answers.
// It wraps the sandbox simulator and, per receiver number, plays a script of
// misbehaviours before it answers normally. Like a real network it is
// idempotent on the submission's reference: a payout it took (even when its
// reply was lost on the way back) is reported accepted again with the same
// reference, and is paid only once. Loaded through PAYRAIL_PAYOUT_NETWORK
// like any production connector. Its scripts fail many calls in a row, and
// every one must reach it: it tunes its circuit breaker not to open within
// them (the breaker has tests of its own, test/providers/breaker.test.ts).
import type { BreakerTuning } from '../../src/providers/breaker.ts';
import type { ProviderContext } from '../../src/providers/index.ts';
import type { PayoutNetwork, PayoutPollRequest, PayoutSubmission, SubmitOutcome } from '../../src/providers/payout-network.ts';
import { SandboxPayoutNetwork } from '../../src/providers/sandbox/payout-network.ts';
import { memoryReceiverStates, SandboxReceivers } from '../../src/providers/sandbox/receivers.ts';

export type Misbehaviour =
  /** The network takes the payout, then the connection drops before the reply arrives. */
  | 'accept_then_lose_reply'
  /** The connection fails; the error carries the request, as some HTTP clients' errors do. */
  | 'connection_error'
  /** The connector gives up as it does when Payrail's AbortSignal fires. */
  | 'timeout'
  /** A definitive answer: the network cannot take it now and nothing was paid. */
  | 'unavailable'
  /** A definitive refusal of this submission (it says nothing of an earlier one). */
  | 'rejected';

/** Misbehaviours still to play, per receiver phone (E.164), for submit and for poll. */
export const submitScripts = new Map<string, Misbehaviour[]>();
export const pollScripts = new Map<string, Array<'connection_error'>>();

export interface SeenCall {
  readonly receiverPhone: string;
  readonly idempotencyKey: string;
  readonly attempt: number;
  /** Whether the call carried an AbortSignal that had not fired yet. */
  readonly signalLive: boolean;
}
export const submissions: SeenCall[] = [];
export const polls: Array<{ readonly providerRef: string; readonly signalLive: boolean }> = [];
/** Payouts the network took, by idempotency key: the reference it gave each. */
export const taken = new Map<string, string>();
const receiverOfRef = new Map<string, string>();

export function resetUnreliableNetwork(): void {
  submitScripts.clear();
  pollScripts.clear();
  submissions.length = 0;
  polls.length = 0;
  taken.clear();
  receiverOfRef.clear();
}

function live(signal: AbortSignal | undefined): boolean {
  return signal instanceof AbortSignal && !signal.aborted;
}

function connectionError(request: unknown): Error {
  return Object.assign(new Error('socket hang up'), { code: 'ECONNRESET', request });
}

export function create(context: ProviderContext): PayoutNetwork & BreakerTuning {
  const sandbox = new SandboxPayoutNetwork(new SandboxReceivers(memoryReceiverStates()), context.clock, context.sandboxDelayMs, context.publicUrl);
  const answer = async (submission: PayoutSubmission): Promise<SubmitOutcome> => {
    const earlier = taken.get(submission.idempotencyKey);
    if (earlier !== undefined) return { kind: 'accepted', providerRef: earlier, pollAfterMs: 0 };
    const outcome = await sandbox.submit(submission);
    if (outcome.kind === 'accepted') {
      taken.set(submission.idempotencyKey, outcome.providerRef);
      receiverOfRef.set(outcome.providerRef, submission.receiverPhone);
    }
    return outcome;
  };
  return {
    breaker: { consecutiveFailuresMax: 1_000 },
    lookupReceiver: (phone) => sandbox.lookupReceiver(phone),
    async submit(submission) {
      submissions.push({
        receiverPhone: submission.receiverPhone,
        idempotencyKey: submission.idempotencyKey,
        attempt: submission.attempt,
        signalLive: live(submission.signal),
      });
      const next = submitScripts.get(submission.receiverPhone)?.shift();
      switch (next) {
        case undefined:
          return answer(submission);
        case 'accept_then_lose_reply':
          await answer(submission);
          throw connectionError({ receiverPhone: submission.receiverPhone, attributes: submission.attributes });
        case 'connection_error':
          throw connectionError({ receiverPhone: submission.receiverPhone, attributes: submission.attributes });
        case 'timeout':
          throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
        case 'unavailable':
          return { kind: 'unavailable', reason: 'network overloaded' };
        case 'rejected':
          return { kind: 'rejected', errorText: 'Amount out of bounds', errorCode: 'AMOUNT_OUT_OF_BOUNDS' };
      }
    },
    async poll(request: PayoutPollRequest) {
      polls.push({ providerRef: request.providerRef, signalLive: live(request.signal) });
      const receiverPhone = receiverOfRef.get(request.providerRef);
      if (receiverPhone !== undefined && pollScripts.get(receiverPhone)?.shift() === 'connection_error') {
        throw connectionError({ receiverPhone, providerRef: request.providerRef });
      }
      return sandbox.poll(request);
    },
  };
}
