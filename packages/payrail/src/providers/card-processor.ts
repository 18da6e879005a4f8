// The card processor connector: what the charge flow and the worker need
// from whoever authorizes cards. The sandbox simulator
// (card-processor-sandbox.ts) and a production connector module implement
// the same interface; the flows never know which one is plugged in.
//
// Contract every connector must keep:
// - `authorize` is idempotent on `reference`, the charge's provider key
//   (domain/provider-keys.ts: unique per installation, at most 20 characters
//   of [0-9a-z], so it fits Authorize.net's invoiceNumber). Payrail calls it again with the same reference when it cannot
//   know whether an earlier call reached the processor (a crash, a timeout);
//   the processor must then report the first outcome, never charge twice.
// - `capture`, `voidCharge`, `refund`, `verify` and `credit` are idempotent on their
//   `reference` in the same way: asked again about one reference, the
//   processor reports the first outcome and moves money at most once.
// - An answered authorization carries a non-empty `processorRef`.
// - A thrown error means "outcome unknown"; Payrail keeps the charge pending
//   and asks again later. A definitive failure is an outcome: `failed`.
// - `signal` fires when Payrail stops waiting (CARD_PROCESSOR_TIMEOUT_MS, or
//   the connector's shorter `callTimeoutMs`); a connector should pass it to
//   its HTTP client. Payrail stops waiting then even if the connector does
//   not (authorizeWithDeadline / pollWithDeadline below): a late answer is
//   ignored, and the charge is asked about again with the same reference.
// - Card data arrives in Secret boxes; a connector reveals it only to put it
//   on the wire to the processor, never into a log or an error.
import type { CardType } from '../domain/cards.ts';
import type { ChargeDeclineCode } from '../domain/card-results.ts';
import type { Secret } from '../domain/secret.ts';
import type { CallbackReceiver } from './callbacks.ts';
import type { ProcessorSettlements } from './card-settlements.ts';
import { withDeadline } from './deadline.ts';

/**
 * A charge made with a card kept for later use, or with a kept card: card
 * networks require these flags (the credential-on-file framework), and a
 * later charge names the first one's network transaction id.
 */
export interface StoredCredential {
  /** `initial`: the card is used now and kept (a card saved while charging); `subsequent`: a kept card is used. */
  readonly use: 'initial' | 'subsequent';
  /** Who started this charge: the card holder (a checkout with a saved card) or the merchant (a schedule, a charge of a kept card). */
  readonly initiator: 'customer' | 'merchant';
  /** `recurring` for a schedule's runs, `unscheduled` for any other use of a kept card. */
  readonly reason: 'recurring' | 'unscheduled';
  /** The network transaction id of the initial authorization, when Payrail knows it. */
  readonly networkTransactionId: string | null;
}

export interface AuthorizationRequest {
  /** The charge's provider key (domain/provider-keys.ts); the idempotency key at the processor. */
  readonly reference: string;
  readonly amountCents: number;
  /** ISO 4217 code of amountCents (Payrail charges USD today). */
  readonly currency: string;
  readonly card: {
    readonly number: Secret<string>;
    /** Null when re-asking after the code was erased; processors accept that for a known reference. */
    readonly cvv: Secret<string> | null;
    readonly expiryMonth: number;
    readonly expiryYear: number;
    readonly cardType: CardType;
  };
  readonly billing: {
    readonly street: string;
    readonly zip: string;
    readonly country: string;
  };
  /** The issuer may approve less than amountCents (accept.blue's transaction_flags.allow_partial_approval); absent: false. */
  readonly allowPartialApproval?: boolean;
  /** Set when the card is being kept, or was kept (a `pm-` source, a schedule run, a `ref-` charge); absent: a one-off card. */
  readonly storedCredential?: StoredCredential;
  /**
   * Whether the charge is captured at once (the charge's `capture`, default
   * true): Payrail credits an auto-captured approval without a later
   * `capture` call, so a processor that separates authorization from capture
   * (Authorize.net's authOnly and authCapture) must capture it in this call.
   * false: authorization only, captured later by `capture`. Absent: true.
   */
  readonly capture?: boolean;
  /** Aborts when Payrail stops waiting; the outcome then counts as unknown. */
  readonly signal: AbortSignal;
}

export type AuthorizationOutcome = 'approved' | 'pending' | 'declined' | 'failed';

export interface AuthorizationResult {
  readonly outcome: AuthorizationOutcome;
  readonly processorRef: string;
  /** Issuer authorization code; "" until approved. */
  readonly authCode: string;
  readonly avsResultCode: string;
  readonly cvvResultCode: string;
  /** Set for declined and failed outcomes. */
  readonly decline: ChargeDeclineCode | null;
  /** For a pending outcome: when to ask again. */
  readonly retryAfterMs: number;
  /**
   * An approval for less than asked (a partial approval, only when the
   * request allowed it): the amount authorized, in cents. Absent: the whole amount.
   */
  readonly authorizedCents?: number;
  /** The card network's transaction id of an approval, kept for later charges of a stored card; absent when the processor gives none. */
  readonly networkTransactionId?: string;
}

export interface PollRequest {
  readonly reference: string;
  readonly processorRef: string;
  readonly signal: AbortSignal;
}

/** A capture of an approved authorization, for at most its amount. Idempotent on `reference` (the charge's). */
export interface CaptureRequest {
  readonly reference: string;
  /** The authorization's processorRef. */
  readonly processorRef: string;
  readonly amountCents: number;
  readonly signal: AbortSignal;
}

/** A void of an authorization or of a capture not yet settled. Idempotent on `reference` (the charge's). */
export interface VoidRequest {
  readonly reference: string;
  readonly processorRef: string;
  readonly signal: AbortSignal;
}

/** A refund of part or all of a settled charge. Idempotent on `reference`, the refund's own provider key. */
export interface RefundRequest {
  readonly reference: string;
  /** The refunded charge's provider key and processorRef. */
  readonly chargeReference: string;
  readonly chargeProcessorRef: string;
  readonly amountCents: number;
  /** ISO 4217 code of amountCents. */
  readonly currency: string;
  /** The refunded card's last four digits (Authorize.net requires them on a refund). */
  readonly cardLastFour: string;
  readonly signal: AbortSignal;
}

/**
 * An unmatched credit: money to a card that no charge of it names (accept.blue's
 * /transactions/credit). Idempotent on `reference`, the credit's own provider key.
 */
export interface CreditRequest {
  readonly reference: string;
  readonly amountCents: number;
  /** ISO 4217 code of amountCents. */
  readonly currency: string;
  readonly card: {
    readonly number: Secret<string>;
    readonly expiryMonth: number;
    readonly expiryYear: number;
    readonly cardType: CardType;
  };
  readonly signal: AbortSignal;
}

/** A zero-amount card check. Idempotent on `reference` (the verification's). */
export type VerifyRequest = Omit<AuthorizationRequest, 'amountCents'>;

/** The answer to a capture, void or refund: no review step, so approved, declined or failed. */
export interface OperationResult {
  readonly outcome: 'approved' | 'declined' | 'failed';
  readonly processorRef: string;
  /** The processor's approval code of a refund; "" otherwise. */
  readonly authCode: string;
  /** Set for declined and failed outcomes. */
  readonly decline: ChargeDeclineCode | null;
}

/** The answer to a verify: the issuer's checks, and no money. */
export interface VerificationResult {
  readonly outcome: 'approved' | 'declined' | 'failed';
  readonly processorRef: string;
  readonly avsResultCode: string;
  readonly cvvResultCode: string;
  readonly decline: ChargeDeclineCode | null;
  /** As AuthorizationResult's: kept when the verified card is saved. */
  readonly networkTransactionId?: string;
}

export interface CardProcessor {
  readonly name: string;
  /**
   * A shorter deadline for this connector's calls, when its processor is
   * known to answer faster; never longer than CARD_PROCESSOR_TIMEOUT_MS,
   * whatever it says (recovery and claim leases are timed from that).
   */
  readonly callTimeoutMs?: number;
  /**
   * How long after a request was first sent the processor still recognises a
   * re-send of its reference as the same request (Authorize.net's duplicate
   * window: at most 8 hours). Absent: for ever. Past it Payrail never sends
   * that request again, since it could be processed twice: see mayResend.
   */
  readonly resendWindowMs?: number;
  authorize(request: AuthorizationRequest): Promise<AuthorizationResult>;
  /** Asks for the current outcome of a pending authorization. */
  poll(request: PollRequest): Promise<AuthorizationResult>;
  capture(request: CaptureRequest): Promise<OperationResult>;
  voidCharge(request: VoidRequest): Promise<OperationResult>;
  refund(request: RefundRequest): Promise<OperationResult>;
  verify(request: VerifyRequest): Promise<VerificationResult>;
  credit(request: CreditRequest): Promise<OperationResult>;
  /**
   * Verifies and reads a callback its processor sent to
   * `POST /providers/<name>/callbacks` (providers/callbacks.ts). Absent: the
   * processor reports by polling only.
   */
  readonly callbacks?: CallbackReceiver;
  /** The processor's settled batches, for reconciliation (card-settlements.ts). Absent: nothing to reconcile with. */
  readonly settlements?: ProcessorSettlements;
}

/**
 * How long Payrail waits for one processor call before treating the outcome
 * as unknown. Well under the charge recovery delay and the worker's claim
 * lease, so a call has ended before anyone asks about its charge again.
 */
export const CARD_PROCESSOR_TIMEOUT_MS = 30_000;

/**
 * Whether a request first sent (at the latest) at `firstSentAtMs` whose
 * outcome is unknown may be sent again now under its reference: only while
 * the re-send, and its own deadline, stay inside the processor's resend
 * window. Past it the record stays pending and is not sent again; the
 * processor's records decide what became of it (its settled batches reach
 * reconciliation, which matches them by the reference they carry).
 */
export function mayResend(processor: Pick<CardProcessor, 'resendWindowMs'>, firstSentAtMs: number, nowMs: number): boolean {
  const windowMs = processor.resendWindowMs;
  if (windowMs === undefined) return true;
  return nowMs + 2 * CARD_PROCESSOR_TIMEOUT_MS < firstSentAtMs + windowMs;
}

/** The deadline of one call to `processor`: CARD_PROCESSOR_TIMEOUT_MS, or the connector's shorter one. */
export function processorTimeoutMs(processor: CardProcessor): number {
  const asked = processor.callTimeoutMs;
  return asked !== undefined && Number.isFinite(asked) && asked > 0 ? Math.min(asked, CARD_PROCESSOR_TIMEOUT_MS) : CARD_PROCESSOR_TIMEOUT_MS;
}

/**
 * Authorizes, bounded by the processor's deadline: settles with the answer,
 * or rejects (outcome unknown) when the deadline passes, even if the
 * connector ignores its signal. Every authorization goes through here.
 */
export function authorizeWithDeadline(processor: CardProcessor, request: Omit<AuthorizationRequest, 'signal'>): Promise<AuthorizationResult> {
  return withDeadline(processorTimeoutMs(processor), (signal) => processor.authorize({ ...request, signal }));
}

/** Polls a pending authorization, bounded like authorizeWithDeadline. Every poll goes through here. */
export function pollWithDeadline(processor: CardProcessor, request: Omit<PollRequest, 'signal'>): Promise<AuthorizationResult> {
  return withDeadline(processorTimeoutMs(processor), (signal) => processor.poll({ ...request, signal }));
}

/** Captures, bounded like authorizeWithDeadline. Every capture goes through here. */
export function captureWithDeadline(processor: CardProcessor, request: Omit<CaptureRequest, 'signal'>): Promise<OperationResult> {
  return withDeadline(processorTimeoutMs(processor), (signal) => processor.capture({ ...request, signal }));
}

/** Voids, bounded like authorizeWithDeadline. Every void goes through here. */
export function voidWithDeadline(processor: CardProcessor, request: Omit<VoidRequest, 'signal'>): Promise<OperationResult> {
  return withDeadline(processorTimeoutMs(processor), (signal) => processor.voidCharge({ ...request, signal }));
}

/** Refunds, bounded like authorizeWithDeadline. Every refund goes through here. */
export function refundWithDeadline(processor: CardProcessor, request: Omit<RefundRequest, 'signal'>): Promise<OperationResult> {
  return withDeadline(processorTimeoutMs(processor), (signal) => processor.refund({ ...request, signal }));
}

/** Credits a card, bounded like authorizeWithDeadline. Every credit goes through here. */
export function creditWithDeadline(processor: CardProcessor, request: Omit<CreditRequest, 'signal'>): Promise<OperationResult> {
  return withDeadline(processorTimeoutMs(processor), (signal) => processor.credit({ ...request, signal }));
}

/** Verifies a card, bounded like authorizeWithDeadline. Every verify goes through here. */
export function verifyWithDeadline(processor: CardProcessor, request: Omit<VerifyRequest, 'signal'>): Promise<VerificationResult> {
  return withDeadline(processorTimeoutMs(processor), (signal) => processor.verify({ ...request, signal }));
}

/** The calls every card processor connector must offer. */
const CARD_PROCESSOR_METHODS = ['authorize', 'poll', 'capture', 'voidCharge', 'refund', 'verify', 'credit'] as const;

/**
 * Refuses, at start, a connector that lacks a call: one missing would fail
 * only when used, and a call that fails counts as an unknown outcome, so the
 * operation would stay pending for ever instead of the process refusing to start.
 */
export function checkCardProcessor(processor: CardProcessor): CardProcessor {
  const missing = CARD_PROCESSOR_METHODS.filter((name) => typeof (processor as unknown as Record<string, unknown>)[name] !== 'function');
  if (missing.length > 0) throw new Error(`card processor connector ${String(processor.name)} lacks ${missing.join(', ')}`);
  return processor;
}
