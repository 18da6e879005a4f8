// A card processor connector module for tests of calls that never end: it
// wraps the sandbox simulator, and the calls it is told about hang: they
// never settle and ignore their abort signal, as a connector stuck on a dead
// connection would. It declares a short deadline (HANG_DEADLINE_MS, the
// connector's `callTimeoutMs`), so Payrail gives up on a hung call quickly
// and the tests never wait long. A hung call can be answered late
// (answerHungCalls), to show that a late answer changes nothing.
// Loaded through PAYRAIL_CARD_PROCESSOR like any production connector.
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

/** How long Payrail waits for this connector's calls. */
export const HANG_DEADLINE_MS = 50;

/** Card numbers whose next authorizations hang, with how many. */
export const hangAuthorizationsOf = new Map<string, number>();
/** Charge references whose next polls hang, with how many. */
export const hangPollsOf = new Map<string, number>();
/** References (a charge's for capture and void, a refund's or verification's own) whose next lifecycle calls hang, with how many. */
export const hangOperationsOf = new Map<string, number>();
/** Calls received (authorizations and polls) per charge reference, hung or not. */
export const callsOf = new Map<string, number>();
/** Lifecycle calls received (capture, void, refund, verify, credit) per reference, hung or not. */
export const operationCallsOf = new Map<string, number>();

const hung: Array<() => void> = [];

/** Lets every hung call answer now, as the processor would have; returns how many there were. */
export function answerHungCalls(): number {
  const answers = hung.splice(0);
  for (const answer of answers) answer();
  return answers.length;
}

function take(counts: Map<string, number>, key: string): boolean {
  const left = counts.get(key) ?? 0;
  if (left === 0) return false;
  counts.set(key, left - 1);
  return true;
}

function hang<T>(late: () => Promise<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    hung.push(() => {
      late().then(resolve, reject);
    });
  });
}

export function create(context: ProviderContext): CardProcessor {
  const sandbox = new SandboxCardProcessor(context.clock, context.sandboxDelayMs);
  return {
    name: 'hanging-test-processor',
    callTimeoutMs: HANG_DEADLINE_MS,
    authorize(request: AuthorizationRequest) {
      callsOf.set(request.reference, (callsOf.get(request.reference) ?? 0) + 1);
      if (take(hangAuthorizationsOf, request.card.number.reveal())) return hang(() => sandbox.authorize(request));
      return sandbox.authorize(request);
    },
    poll(request: PollRequest) {
      callsOf.set(request.reference, (callsOf.get(request.reference) ?? 0) + 1);
      if (take(hangPollsOf, request.reference)) return hang(() => sandbox.poll(request));
      return sandbox.poll(request);
    },
    capture: (request: CaptureRequest) => operation(request.reference, () => sandbox.capture(request)),
    voidCharge: (request: VoidRequest) => operation(request.reference, () => sandbox.voidCharge(request)),
    refund: (request: RefundRequest) => operation(request.reference, () => sandbox.refund(request)),
    verify: (request: VerifyRequest) => operation(request.reference, () => sandbox.verify(request)),
    credit: (request: CreditRequest) => operation(request.reference, () => sandbox.credit(request)),
  };
}

function operation<T>(reference: string, call: () => Promise<T>): Promise<T> {
  operationCallsOf.set(reference, (operationCallsOf.get(reference) ?? 0) + 1);
  return take(hangOperationsOf, reference) ? hang(call) : call();
}
