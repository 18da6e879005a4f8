// A card processor connector module for tests of unknown outcomes: it wraps
// the sandbox simulator and throws (as a timed-out or unreachable processor
// would) on the first authorizations of each card number it is told about.
// Loaded through PAYRAIL_CARD_PROCESSOR like any production connector.
import type { ProviderContext } from '../../src/providers/index.ts';
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

/** Card numbers whose next authorization fails as unreachable, with how many times. */
export const unreachableFor = new Map<string, number>();

export function create(context: ProviderContext): CardProcessor {
  const sandbox = new SandboxCardProcessor(context.clock, context.sandboxDelayMs);
  return {
    name: 'flaky-test-processor',
    async authorize(request: AuthorizationRequest) {
      const number = request.card.number.reveal();
      const failures = unreachableFor.get(number) ?? 0;
      if (failures > 0) {
        unreachableFor.set(number, failures - 1);
        throw new Error('connect ETIMEDOUT processor.example:443');
      }
      return sandbox.authorize(request);
    },
    poll: (request: PollRequest) => sandbox.poll(request),
    capture: (request: CaptureRequest) => sandbox.capture(request),
    voidCharge: (request: VoidRequest) => sandbox.voidCharge(request),
    refund: (request: RefundRequest) => sandbox.refund(request),
    verify: (request: VerifyRequest) => sandbox.verify(request),
    credit: (request: CreditRequest) => sandbox.credit(request),
  };
}
