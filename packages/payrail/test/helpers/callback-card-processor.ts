// A card processor connector module for tests of provider callbacks and of
// the circuit breaker, loaded through PAYRAIL_CARD_PROCESSOR like any
// production connector. It answers as the sandbox simulator does, except:
// - a charge held for review (the sandbox's pending card, 4000000000000259)
//   stays pending at every poll until the test releases its processor
//   reference (releaseReview), as a processor's reviewer would; the sandbox
//   then answers the approval;
// - it takes callbacks (`callbacks`): a JSON body {"processorRef", "reference"}
//   signed with HMAC-SHA256 of the raw body under CALLBACK_TEST_KEY, hex, in
//   the X-Test-Signature header;
// - its next authorizations can be made to fail as an unreachable processor
//   does (failAuthorizations), to open its breaker, whose settings it tunes
//   (BREAKER_FAILURES_MAX failures in a row; a half-open interval long enough
//   that no test sees it pass by itself).
import crypto from 'node:crypto';
import type { CallbackVerdict, ProviderCallback } from '../../src/providers/callbacks.ts';
import type { BreakerTuning } from '../../src/providers/breaker.ts';
import type {
  AuthorizationRequest,
  CaptureRequest,
  CardProcessor,
  CreditRequest,
  PollRequest,
  RefundRequest,
  VerifyRequest,
  VoidRequest,
} from '../../src/providers/card-processor.ts';
import { SandboxCardProcessor } from '../../src/providers/card-processor-sandbox.ts';
import type { ProviderContext } from '../../src/providers/index.ts';

export const CALLBACK_CONNECTOR_NAME = 'test-callbacks';
export const CALLBACK_TEST_KEY = 'test-signature-key-not-a-secret';
export const SIGNATURE_HEADER = 'x-test-signature';
export const BREAKER_FAILURES_MAX = 3;

/** Processor references whose review is over: their next poll answers as the sandbox does. */
export const releasedReviews = new Set<string>();
/** Calls received, by kind. */
export const calls = { authorize: 0, poll: 0 };
/** Authorizations that fail (throw) before the sandbox answers the next ones. */
export const failing = { authorizations: 0 };

export function resetCallbackProcessor(): void {
  releasedReviews.clear();
  calls.authorize = 0;
  calls.poll = 0;
  failing.authorizations = 0;
}

export function signatureOf(body: string | Buffer, key = CALLBACK_TEST_KEY): string {
  return crypto.createHmac('sha256', key).update(body).digest('hex');
}

function verify(callback: ProviderCallback): CallbackVerdict {
  const given = callback.headers[SIGNATURE_HEADER] ?? '';
  const expected = Buffer.from(signatureOf(callback.rawBody), 'hex');
  const sent = /^[0-9a-f]{64}$/.test(given) ? Buffer.from(given, 'hex') : Buffer.alloc(0);
  if (sent.length !== expected.length || !crypto.timingSafeEqual(sent, expected)) return { accepted: false, reason: 'signature does not match' };
  let body: unknown;
  try {
    body = JSON.parse(callback.rawBody.toString('utf8'));
  } catch {
    return { accepted: false, reason: 'body is not JSON' };
  }
  const { processorRef, reference } = (body ?? {}) as { processorRef?: unknown; reference?: unknown };
  if (typeof processorRef !== 'string') return { accepted: true, hints: [] };
  return { accepted: true, hints: [{ kind: 'card', processorRef, reference: typeof reference === 'string' ? reference : null }] };
}

export function create(context: ProviderContext): CardProcessor & BreakerTuning {
  const sandbox = new SandboxCardProcessor(context.clock, context.sandboxDelayMs);
  return {
    name: CALLBACK_CONNECTOR_NAME,
    breaker: { consecutiveFailuresMax: BREAKER_FAILURES_MAX, halfOpenAfterMs: 10 * 60_000 },
    callbacks: { verify },
    async authorize(request: AuthorizationRequest) {
      calls.authorize += 1;
      if (failing.authorizations > 0) {
        failing.authorizations -= 1;
        throw new Error('connect ECONNREFUSED processor.example:443');
      }
      return sandbox.authorize(request);
    },
    async poll(request: PollRequest) {
      calls.poll += 1;
      const answer = await sandbox.poll(request);
      return releasedReviews.has(request.processorRef) ? answer : { ...answer, outcome: 'pending', authCode: '', retryAfterMs: 60 * 60_000 };
    },
    capture: (request: CaptureRequest) => sandbox.capture(request),
    voidCharge: (request: VoidRequest) => sandbox.voidCharge(request),
    refund: (request: RefundRequest) => sandbox.refund(request),
    verify: (request: VerifyRequest) => sandbox.verify(request),
    credit: (request: CreditRequest) => sandbox.credit(request),
  };
}
