// Veriff's answers in Payrail's terms. A decision (the decision webhook, and
// GET /v1/sessions/{id}/decision) carries `verification.status`: approved,
// declined, resubmission_requested, expired, abandoned or review, with a
// status code (9001 approved, 9102 declined, 9103 resubmission requested,
// 9104 expired or abandoned, 9121 review; Veriff's tables disagree on
// which code abandoned has, so the status text decides and the code only
// confirms), a reasonCode for declined and resubmission sessions, and a
// decisionTime. A decision read whose `verification` is null has no
// decision yet: pending.
import type { KycDecision, KycSessionDecision } from '../kyc.ts';

/** What a decision's `verification` object holds that Payrail reads. */
export interface WireDecision {
  readonly id?: unknown;
  readonly status?: unknown;
  readonly code?: unknown;
  readonly reasonCode?: unknown;
  readonly decisionTime?: unknown;
  readonly vendorData?: unknown;
}

const DECISIONS: Readonly<Record<string, KycDecision>> = {
  approved: 'approved',
  declined: 'declined',
  resubmission_requested: 'resubmission_requested',
  expired: 'expired',
  abandoned: 'abandoned',
  review: 'review',
};

/** Longest reason code kept (Veriff's are 3 or 4 digits; granular ones a little longer). */
const REASON_CODE_CHARS_MAX = 32;

/** The decision a status text names, or null for one Payrail does not know. */
export function decisionOfStatus(status: unknown): KycDecision | null {
  return typeof status === 'string' && Object.hasOwn(DECISIONS, status) ? DECISIONS[status]! : null;
}

/** A reason code as text (Veriff sends a number, some payloads a string), or null. */
export function reasonCodeOf(value: unknown): string | null {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  if (typeof value === 'string' && /^[0-9A-Za-z_-]{1,32}$/.test(value) && value.length <= REASON_CODE_CHARS_MAX) return value;
  return null;
}

/** An ISO 8601 time as ms, or null when absent or unreadable. */
export function timeOf(value: unknown): number | null {
  if (typeof value !== 'string' || value.length > 40) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * A decision object as Payrail keeps it; null when its status is not one
 * Payrail knows (the caller treats that as an answer it cannot use). A
 * decision without a decisionTime keeps null: the store then applies it
 * only over no decision at all.
 */
export function sessionDecisionOf(verification: WireDecision): KycSessionDecision | null {
  const decision = decisionOfStatus(verification.status);
  if (decision === null) return null;
  return {
    decision,
    reasonCode: decision === 'approved' ? null : reasonCodeOf(verification.reasonCode),
    decidedAtMs: timeOf(verification.decisionTime),
  };
}

/** What a decision means for a callback hint: approved, declined (any ending but approval), or still pending. */
export function hintDecisionOf(decision: KycDecision): 'approved' | 'declined' | 'pending' {
  if (decision === 'approved') return 'approved';
  if (decision === 'review' || decision === 'pending') return 'pending';
  return 'declined';
}
