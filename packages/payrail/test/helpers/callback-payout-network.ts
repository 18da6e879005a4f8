// A payout network connector module for tests of payout callbacks and
// reversals, loaded through PAYRAIL_PAYOUT_NETWORK like any production
// connector. It takes every payout (idempotent on the key: a resubmission
// gets the same reference) under a reference of its own that carries none of
// Payrail's keys, and answers polls with what the test set for that
// reference (`outcomes`; pending until then). Its callbacks are a JSON body
// {"providerRef", "reference"} signed with HMAC-SHA256 of the raw body under
// PAYOUT_CALLBACK_KEY, hex, in the X-Test-Signature header; a body without
// providerRef is a ping (no hints).
import crypto from 'node:crypto';
import type { CallbackVerdict, ProviderCallback } from '../../src/providers/callbacks.ts';
import type { BreakerTuning } from '../../src/providers/breaker.ts';
import type { ProviderContext } from '../../src/providers/index.ts';
import type { PayoutNetwork, PayoutSubmission, PollOutcome } from '../../src/providers/payout-network.ts';

export const PAYOUT_CONNECTOR_NAME = 'test-payouts';
export const PAYOUT_CALLBACK_KEY = 'test-payout-signature-key-not-a-secret';
export const PAYOUT_SIGNATURE_HEADER = 'x-test-signature';

/** What a poll of each network reference answers; absent: still pending. */
export const outcomes = new Map<string, PollOutcome>();
/** The network's reference of each payout it took, by Payrail's idempotency key. */
export const taken = new Map<string, string>();
/** The references polled, in order. */
export const polled: string[] = [];
/** Submissions received, in order (a callback must never cause one). */
export const submitted: string[] = [];
/** When set, the next polls wait for it (a network slow to answer), so a test can line calls up. */
export const gate: { next: Promise<void> | null } = { next: null };
/** Waiters for a number of polls received. */
const pollWaiters: Array<{ count: number; resolve: () => void }> = [];

/** Resolves once `count` polls in all have reached the network. */
export function pollsReached(count: number): Promise<void> {
  if (polled.length >= count) return Promise.resolve();
  return new Promise((resolve) => pollWaiters.push({ count, resolve }));
}

export function resetPayoutNetwork(): void {
  outcomes.clear();
  taken.clear();
  polled.length = 0;
  submitted.length = 0;
  gate.next = null;
  pollWaiters.length = 0;
}

export function payoutSignatureOf(body: string | Buffer, key = PAYOUT_CALLBACK_KEY): string {
  return crypto.createHmac('sha256', key).update(body).digest('hex');
}

function verify(callback: ProviderCallback): CallbackVerdict {
  const given = callback.headers[PAYOUT_SIGNATURE_HEADER] ?? '';
  const expected = Buffer.from(payoutSignatureOf(callback.rawBody), 'hex');
  const sent = /^[0-9a-f]{64}$/.test(given) ? Buffer.from(given, 'hex') : Buffer.alloc(0);
  if (sent.length !== expected.length || !crypto.timingSafeEqual(sent, expected)) return { accepted: false, reason: 'signature does not match' };
  let body: unknown;
  try {
    body = JSON.parse(callback.rawBody.toString('utf8'));
  } catch {
    return { accepted: false, reason: 'body is not JSON' };
  }
  const { providerRef, reference } = (body ?? {}) as { providerRef?: unknown; reference?: unknown };
  if (typeof providerRef !== 'string') return { accepted: true, hints: [] };
  return { accepted: true, hints: [{ kind: 'payout', providerRef, reference: typeof reference === 'string' ? reference : null }] };
}

export function create(_context: ProviderContext): PayoutNetwork & BreakerTuning {
  return {
    name: PAYOUT_CONNECTOR_NAME,
    breaker: { consecutiveFailuresMax: 1_000 },
    callbacks: { verify },
    lookupReceiver: async () => ({ registered: true }),
    async submit(submission: PayoutSubmission) {
      submitted.push(submission.idempotencyKey);
      let ref = taken.get(submission.idempotencyKey);
      if (ref === undefined) {
        ref = `tpn-${crypto.createHash('sha256').update(submission.idempotencyKey).digest('hex').slice(0, 20)}`;
        taken.set(submission.idempotencyKey, ref);
      }
      // The first poll is not due at once: the test decides when the network answers.
      return { kind: 'accepted', providerRef: ref, pollAfterMs: 60 * 60_000 };
    },
    async poll(request) {
      polled.push(request.providerRef);
      for (const waiter of pollWaiters.filter((w) => polled.length >= w.count)) {
        pollWaiters.splice(pollWaiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      if (gate.next !== null) await gate.next;
      return outcomes.get(request.providerRef) ?? { kind: 'pending', retryAfterMs: 60 * 60_000 };
    },
  };
}
