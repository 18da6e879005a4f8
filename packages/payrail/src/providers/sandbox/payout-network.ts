// Sandbox payout network. It is stateless apart from the receiver table:
// the outcome and the submission time travel inside the provider reference,
// so any worker process can poll a payout another one submitted, and a
// resubmission after a crash is harmless. Time moves in steps of
// PAYRAIL_SANDBOX_DELAY_MS on the injected clock (0 makes it immediate).
import type { Clock } from '../../domain/clock.ts';
import type { PayoutNetwork, PayoutPollRequest, PayoutSubmission, PollOutcome, SubmitOutcome } from '../payout-network.ts';
import { sandboxInvitationUrl } from './links.ts';
import { scenarioOf, type SandboxReceivers } from './receivers.ts';

type Course = 'ok' | 'slow' | 'fail';

/** Steps from acceptance to the final answer. */
const STEPS: Readonly<Record<Course, number>> = { ok: 1, slow: 60, fail: 1 };
/** Receivers ending in 0006 see the network fail this many times before it takes the payout. */
export const FLAKY_FAILURES = 2;
export const SANDBOX_REJECTION = { text: 'Receiver wallet rejected the payment (sandbox receiver ending in 0004)', code: 'WALLET_REJECTED' } as const;
const REF_PATTERN = /^sbx\.(ok|slow|fail)\.([0-9]{1,16})\.([A-Za-z0-9_-]{1,100})$/;

export class SandboxPayoutNetwork implements PayoutNetwork {
  constructor(
    private readonly receivers: SandboxReceivers,
    private readonly clock: Clock,
    private readonly stepMs: number,
    private readonly publicUrl: string,
  ) {}

  async lookupReceiver(phoneE164: string): Promise<{ registered: boolean }> {
    return { registered: (await this.receivers.read(phoneE164)).registered };
  }

  async submit(submission: PayoutSubmission): Promise<SubmitOutcome> {
    const receiver = await this.receivers.read(submission.receiverPhone);
    if (!receiver.registered) return { kind: 'receiver_unregistered' };
    const scenario = scenarioOf(submission.receiverPhone);
    if (scenario === 'flaky' && submission.attempt <= FLAKY_FAILURES) {
      return { kind: 'unavailable', reason: `sandbox network unavailable (attempt ${submission.attempt} of a receiver ending in 0006)` };
    }
    const course: Course = scenario === 'slow' ? 'slow' : scenario === 'network_error' ? 'fail' : 'ok';
    return { kind: 'accepted', providerRef: `sbx.${course}.${this.clock.nowMs()}.${submission.idempotencyKey}`, pollAfterMs: STEPS[course] * this.stepMs };
  }

  // The simulator answers at once, so it has no use for the AbortSignals.
  async poll({ providerRef }: PayoutPollRequest): Promise<PollOutcome> {
    const match = REF_PATTERN.exec(providerRef);
    if (match === null) throw new Error(`not a sandbox payout reference: ${providerRef}`);
    const course = match[1] as Course;
    const submittedAtMs = Number(match[2]);
    const dueAtMs = submittedAtMs + STEPS[course] * this.stepMs;
    const nowMs = this.clock.nowMs();
    if (nowMs < dueAtMs) return { kind: 'pending', retryAfterMs: dueAtMs - nowMs };
    if (course === 'fail') return { kind: 'failed', errorText: SANDBOX_REJECTION.text, errorCode: SANDBOX_REJECTION.code };
    return { kind: 'succeeded', transactionRef: `SBX-${submittedAtMs}-${match[3]}` };
  }

  invitationUrl(phoneE164: string): string {
    return sandboxInvitationUrl(this.publicUrl, phoneE164);
  }

  acceptInvitation(phoneE164: string): Promise<'registered' | 'already_registered'> {
    return this.receivers.acceptInvitation(phoneE164, this.clock.nowMs());
  }
}
