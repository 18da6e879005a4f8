// The card processor connector: what the charge flow and the worker need
// from whoever authorizes cards. The sandbox simulator
// (card-processor-sandbox.ts) and a production connector module implement
// the same interface; the flows never know which one is plugged in.
//
// Contract every connector must keep:
// - `authorize` is idempotent on `reference` (the charge's reference
//   number). Payrail calls it again with the same reference when it cannot
//   know whether an earlier call reached the processor (a crash, a timeout);
//   the processor must then report the first outcome, never charge twice.
// - An answered authorization carries a non-empty `processorRef`.
// - A thrown error means "outcome unknown"; Payrail keeps the charge pending
//   and asks again later. A definitive failure is an outcome: `failed`.
// - Card data arrives in Secret boxes; a connector reveals it only to put it
//   on the wire to the processor, never into a log or an error.
import type { CardType } from '../domain/cards.ts';
import type { ChargeDeclineCode } from '../domain/card-results.ts';
import type { Secret } from '../domain/secret.ts';

export interface AuthorizationRequest {
  /** The charge's reference number; the idempotency key at the processor. */
  readonly reference: string;
  readonly amountCents: number;
  readonly currency: 'USD';
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
}

export interface PollRequest {
  readonly reference: string;
  readonly processorRef: string;
  readonly signal: AbortSignal;
}

export interface CardProcessor {
  readonly name: string;
  authorize(request: AuthorizationRequest): Promise<AuthorizationResult>;
  /** Asks for the current outcome of a pending authorization. */
  poll(request: PollRequest): Promise<AuthorizationResult>;
}

/** How long Payrail waits for one processor call before treating the outcome as unknown. */
export const PROCESSOR_CALL_TIMEOUT_MS = 30_000;
