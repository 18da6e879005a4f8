// The sandbox card issuer (docs/api-decisions.md section 8). Outcomes depend only on the
// card number, so a repeated authorization of one reference reports the
// same outcome, as the connector contract requires. The pending-review card
// is approved once 10 sandbox steps (PAYRAIL_SANDBOX_DELAY_MS each) have
// passed; the due time travels inside the processor reference, so the
// simulator keeps no state of its own and any worker process can poll it.
import crypto from 'node:crypto';
import type { Clock } from '../domain/clock.ts';
import type { ChargeDeclineCode } from '../domain/card-results.ts';
import type {
  AuthorizationRequest,
  AuthorizationResult,
  CaptureRequest,
  CardProcessor,
  CreditRequest,
  OperationResult,
  PollRequest,
  RefundRequest,
  VerificationResult,
  VerifyRequest,
  VoidRequest,
} from './card-processor.ts';

/** The pending card's review lasts this many sandbox steps (about 10 s by default). */
export const PENDING_REVIEW_STEPS = 10;

interface Scenario {
  readonly outcome: 'approved' | 'pending' | 'declined' | 'failed';
  readonly avs: string;
  readonly cvv: string;
  readonly decline: ChargeDeclineCode | null;
  /** The card's refunds are declined (remembered in the processor reference, so refunds need no card). */
  readonly refundDeclined?: true;
  /** The issuer approves half the amount when partial approval is allowed, and declines the charge otherwise. */
  readonly partial?: true;
}

const APPROVED: Scenario = { outcome: 'approved', avs: 'Y', cvv: 'M', decline: null };

/** The test-card table; any other number passing Luhn is approved with AVS Y, CVV M. */
export const SANDBOX_TEST_CARDS: Readonly<Record<string, Scenario>> = {
  '4111111111111111': APPROVED,
  '5555555555554444': APPROVED,
  '378282246310005': APPROVED,
  '6011111111111117': APPROVED,
  '4000000000000002': { outcome: 'declined', avs: 'Y', cvv: 'M', decline: 'card_declined' },
  '4000000000009995': { outcome: 'declined', avs: 'Y', cvv: 'M', decline: 'insufficient_funds' },
  '4000000000000069': { outcome: 'declined', avs: 'Y', cvv: 'M', decline: 'invalid_card' },
  '4000000000000101': { outcome: 'approved', avs: 'Y', cvv: 'N', decline: null },
  '4000000000000036': { outcome: 'approved', avs: 'Z', cvv: 'M', decline: null },
  '4000000000000259': { outcome: 'pending', avs: 'Y', cvv: 'M', decline: null },
  '4000000000000119': { outcome: 'failed', avs: '', cvv: '', decline: 'processor_error' },
  '4000000000005126': { outcome: 'approved', avs: 'Y', cvv: 'M', decline: null, refundDeclined: true },
  '4000000000000077': { outcome: 'approved', avs: 'Y', cvv: 'M', decline: null, partial: true },
};

/** The partial-approval card's answer: half the amount (rounded down to the cent) when allowed, else a decline for want of funds. */
function partialScenario(scenario: Scenario, request: AuthorizationRequest): { scenario: Scenario; authorizedCents?: number } {
  if (scenario.partial !== true) return { scenario };
  if (request.allowPartialApproval !== true) return { scenario: { outcome: 'declined', avs: 'Y', cvv: 'M', decline: 'insufficient_funds' } };
  return { scenario, authorizedCents: Math.floor(request.amountCents / 2) };
}

/**
 * sbx_<reference>_<outcome letter>_<review due ms>, and _NR for a card whose
 * refunds are declined. The reference is a provider key (domain/provider-keys.ts,
 * [0-9a-z], at most 20 characters), or the charge's bare reference number
 * that Payrail sent before installation-scoped keys: authorizations made
 * then are still polled, captured, voided and refunded.
 */
const REF_PATTERN = /^sbx_([0-9a-z]{1,20})_(A|P|D|F)_([0-9]+)(_NR)?$/;

/** A reference from before installation-scoped keys: the charge's reference number, digits only (a provider key has a letter). */
const LEGACY_REFERENCE = /^[0-9]{1,16}$/;

/**
 * Whether the processor reference's `issued` reference names the charge
 * `reference` names: the same text, or (an authorization made before the
 * upgrade) the old reference number equal to the primary key the new key
 * carries (the base-36 digits after the 8-character prefix and the kind letter).
 */
export function sameSandboxReference(issued: string, reference: string): boolean {
  if (issued === reference) return true;
  if (!LEGACY_REFERENCE.test(issued) || reference.length < 10 || reference.charAt(8) !== 'c') return false;
  return Number.parseInt(reference.slice(9), 36) === Number(issued);
}

/** A network transaction id derived from the reference (15 digits, as Visa's are), the same for a repeated authorization. */
export function sandboxNetworkTransactionId(reference: string): string {
  const digits = BigInt(`0x${crypto.createHash('sha256').update(`sandbox-network:${reference}`).digest('hex').slice(0, 15)}`) % 10n ** 15n;
  return digits.toString().padStart(15, '0');
}

export class SandboxCardProcessor implements CardProcessor {
  readonly name = 'sandbox';

  constructor(
    private readonly clock: Clock,
    private readonly stepMs: number,
  ) {}

  async authorize(request: AuthorizationRequest): Promise<AuthorizationResult> {
    const { scenario, authorizedCents } = partialScenario(SANDBOX_TEST_CARDS[request.card.number.reveal()] ?? APPROVED, request);
    const dueMs = scenario.outcome === 'pending' ? this.clock.nowMs() + PENDING_REVIEW_STEPS * this.stepMs : 0;
    const processorRef = `sbx_${request.reference}_${scenario.outcome[0]!.toUpperCase()}_${dueMs}${scenario.refundDeclined ? '_NR' : ''}`;
    return {
      outcome: scenario.outcome,
      processorRef,
      authCode: scenario.outcome === 'approved' ? authCodeFor(request.reference) : '',
      avsResultCode: scenario.avs,
      cvvResultCode: scenario.cvv,
      decline: scenario.decline,
      retryAfterMs: scenario.outcome === 'pending' ? PENDING_REVIEW_STEPS * this.stepMs : 0,
      ...(authorizedCents === undefined ? {} : { authorizedCents }),
      ...(scenario.outcome === 'approved' ? { networkTransactionId: sandboxNetworkTransactionId(request.reference) } : {}),
    };
  }

  async poll(request: PollRequest): Promise<AuthorizationResult> {
    const match = REF_PATTERN.exec(request.processorRef);
    if (match === null || !sameSandboxReference(match[1]!, request.reference)) throw new Error(`unknown sandbox processor reference ${request.processorRef}`);
    if (match[2] !== 'P') throw new Error(`sandbox authorization ${request.processorRef} is not pending`);
    const dueMs = Number(match[3]);
    const nowMs = this.clock.nowMs();
    const review = SANDBOX_TEST_CARDS['4000000000000259']!;
    if (nowMs < dueMs) {
      return {
        outcome: 'pending',
        processorRef: request.processorRef,
        authCode: '',
        avsResultCode: review.avs,
        cvvResultCode: review.cvv,
        decline: null,
        retryAfterMs: dueMs - nowMs,
      };
    }
    return {
      outcome: 'approved',
      processorRef: request.processorRef,
      // As the authorization answered them: derived from the reference it was made with.
      authCode: authCodeFor(match[1]!),
      avsResultCode: review.avs,
      cvvResultCode: review.cvv,
      decline: null,
      retryAfterMs: 0,
      networkTransactionId: sandboxNetworkTransactionId(match[1]!),
    };
  }

  async capture(request: CaptureRequest): Promise<OperationResult> {
    approvedReference(request.processorRef);
    return { outcome: 'approved', processorRef: `sbx_cp_${request.reference}`, authCode: '', decline: null };
  }

  async voidCharge(request: VoidRequest): Promise<OperationResult> {
    approvedReference(request.processorRef);
    return { outcome: 'approved', processorRef: `sbx_vd_${request.reference}`, authCode: '', decline: null };
  }

  /** Approved, except for charges of the refund-declining card (docs/api-decisions.md section 10). */
  async refund(request: RefundRequest): Promise<OperationResult> {
    const match = approvedReference(request.chargeProcessorRef);
    const processorRef = `sbx_rf_${request.reference}`;
    if (match[4] === '_NR') return { outcome: 'declined', processorRef, authCode: '', decline: 'refund_declined' };
    return { outcome: 'approved', processorRef, authCode: authCodeFor(request.reference), decline: null };
  }

  /**
   * An unmatched credit: approved, except to the cards whose charges are
   * declined or failed (they read as closed accounts) and to the card whose
   * refunds are declined (docs/acceptblue-compatibility.md).
   */
  async credit(request: CreditRequest): Promise<OperationResult> {
    const scenario = SANDBOX_TEST_CARDS[request.card.number.reveal()] ?? APPROVED;
    const processorRef = `sbx_cr_${request.reference}`;
    if (scenario.outcome === 'failed') return { outcome: 'failed', processorRef, authCode: '', decline: scenario.decline };
    if (scenario.outcome === 'declined') return { outcome: 'declined', processorRef, authCode: '', decline: scenario.decline };
    if (scenario.refundDeclined === true) return { outcome: 'declined', processorRef, authCode: '', decline: 'refund_declined' };
    return { outcome: 'approved', processorRef, authCode: authCodeFor(request.reference), decline: null };
  }

  /** The card's checks as for a charge; a zero amount is never held for review. */
  async verify(request: VerifyRequest): Promise<VerificationResult> {
    const scenario = SANDBOX_TEST_CARDS[request.card.number.reveal()] ?? APPROVED;
    const outcome = scenario.outcome === 'pending' ? 'approved' : scenario.outcome;
    const processorRef = `sbx_vf_${request.reference}`;
    const checks = { processorRef, avsResultCode: scenario.avs, cvvResultCode: scenario.cvv, decline: scenario.decline };
    return outcome === 'approved' ? { outcome, ...checks, networkTransactionId: sandboxNetworkTransactionId(request.reference) } : { outcome, ...checks };
  }
}

/** An authorization reference this simulator issued and approved (directly or after review), or an error. */
function approvedReference(processorRef: string): RegExpExecArray {
  const match = REF_PATTERN.exec(processorRef);
  if (match === null || (match[2] !== 'A' && match[2] !== 'P')) throw new Error(`not an approved sandbox authorization: ${processorRef}`);
  return match;
}

/** Six characters derived from the reference, so a repeated authorization reports the same code. */
export function authCodeFor(reference: string): string {
  return crypto.createHash('sha256').update(`sandbox-auth:${reference}`).digest('hex').slice(0, 6).toUpperCase();
}
