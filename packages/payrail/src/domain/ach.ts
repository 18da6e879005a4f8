// Checks and ACH as rules (behaviour.md section 17): what a bank account in a
// request must look like, the business-day calendar and the daily cut-off,
// the states an ACH entry moves through and which moves are allowed, the
// NACHA return codes Payrail knows, and when a check may be voided or
// refunded. The store keeps the facts; every rule about them lives here.
import { DAY_MS } from './clock.ts';

// Bank accounts ----------------------------------------------------------------

/** Standard Entry Class codes accepted (accept.blue's CheckFields). */
export const SEC_CODES = ['PPD', 'CCD', 'TEL', 'WEB'] as const;
export type SecCode = (typeof SEC_CODES)[number];
/** accept.blue's default when a request names none (behaviour section 17). */
export const DEFAULT_SEC_CODE: SecCode = 'WEB';

/** Account types, as Payrail reasons about them; requests may write them in any case (ACCOUNT_TYPE_PATTERN) and answers echo what was sent. */
export const ACCOUNT_TYPES = ['checking', 'savings'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];
/** Either case, as accept.blue's integrations send it ("Checking" from Vendure, "checking" from the spec). */
export const ACCOUNT_TYPE_PATTERN = '^([Cc][Hh][Ee][Cc][Kk][Ii][Nn][Gg]|[Ss][Aa][Vv][Ii][Nn][Gg][Ss])$';

export const ACCOUNT_NUMBER_DIGITS_MIN = 4;
export const ACCOUNT_NUMBER_DIGITS_MAX = 17;
/** Name on the account: accept.blue's name field bound. */
export const ACCOUNT_NAME_LENGTH_MAX = 255;

/** The account type `text` names (any case), or null. */
export function accountTypeOf(text: string): AccountType | null {
  const lower = text.toLowerCase();
  return (ACCOUNT_TYPES as readonly string[]).includes(lower) ? (lower as AccountType) : null;
}

/** The SEC code `text` names (any case), or null. */
export function secCodeOf(text: string): SecCode | null {
  const upper = text.toUpperCase();
  return (SEC_CODES as readonly string[]).includes(upper) ? (upper as SecCode) : null;
}

/**
 * Why `text` is not a routing number, or null when it is one: nine digits
 * whose ABA check digit holds (3, 7 and 1 weights, the sum a multiple of 10).
 */
export function routingNumberProblem(text: string): string | null {
  if (!/^[0-9]{9}$/.test(text)) return 'routing_number must be exactly 9 digits';
  const d = [...text].map(Number);
  const sum = 3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!);
  if (sum % 10 !== 0) return 'routing_number fails the ABA check digit';
  return null;
}

/** Why `text` is not an account number, or null. */
export function accountNumberProblem(text: string): string | null {
  if (!/^[0-9]+$/.test(text)) return 'account_number must be digits only';
  if (text.length < ACCOUNT_NUMBER_DIGITS_MIN || text.length > ACCOUNT_NUMBER_DIGITS_MAX) {
    return `account_number must be ${ACCOUNT_NUMBER_DIGITS_MIN} to ${ACCOUNT_NUMBER_DIGITS_MAX} digits`;
  }
  return null;
}

// Business days and the cut-off -------------------------------------------------

/**
 * Business days are Monday to Friday, UTC. Federal Reserve holidays are not
 * observed: the sandbox's calendar and Payrail's refund rule count weekdays
 * only (documented in docs/checks-and-ach.md).
 */
export function isBusinessDay(ms: number): boolean {
  const weekday = new Date(ms).getUTCDay();
  return weekday !== 0 && weekday !== 6;
}

/** `ms` moved forward by `days` business days, keeping the time of day; from a weekend, counting starts at the next Monday. */
export function addBusinessDays(ms: number, days: number): number {
  if (!Number.isSafeInteger(days) || days < 0) throw new Error(`business days must be a non-negative integer, got ${days}`);
  let at = ms;
  while (!isBusinessDay(at)) at += DAY_MS;
  for (let left = days; left > 0; ) {
    at += DAY_MS;
    if (isBusinessDay(at)) left -= 1;
  }
  return at;
}

/** The daily ACH cut-off default (PAYRAIL_ACH_CUTOFF_UTC). */
export const DEFAULT_ACH_CUTOFF_UTC = '21:00';

/** The first cut-off strictly after `ms` that falls on a business day: when an entry submitted at `ms` is originated. */
export function nextCutoffAfterMs(ms: number, cutoffMinuteOfDay: number): number {
  let at = Math.floor(ms / DAY_MS) * DAY_MS + cutoffMinuteOfDay * 60_000;
  while (at <= ms || !isBusinessDay(at)) at += DAY_MS;
  return at;
}

/** An originated entry settles this many business days later (behaviour section 17). */
export const SETTLEMENT_BUSINESS_DAYS = 2;
/** A check may be refunded from this many business days after it was processed. */
export const REFUND_AFTER_BUSINESS_DAYS = 5;

/** When an entry originated at `originatedAtMs` settles, unless it is returned first. */
export function settlesAtMs(originatedAtMs: number): number {
  return addBusinessDays(originatedAtMs, SETTLEMENT_BUSINESS_DAYS);
}

/** From when a check charge made at `createdAtMs` may be refunded. */
export function refundableFromMs(createdAtMs: number): number {
  return addBusinessDays(createdAtMs, REFUND_AFTER_BUSINESS_DAYS);
}

// Entry states ------------------------------------------------------------------

/**
 * An ACH entry's states. `submitting`: written before the network is asked
 * (an unknown outcome is asked again with the same reference); `pending`:
 * accepted, not yet originated; `voiding`: a void written before the network
 * is asked; `originated`: sent to the ACH network at a cut-off; `settled`:
 * the money arrived (a debit) or left (a credit); `returned`: the receiving
 * bank sent it back with a NACHA code; `voided`, `declined`, `failed`:
 * nothing moved.
 */
export const ACH_STATES = ['submitting', 'pending', 'voiding', 'originated', 'settled', 'returned', 'voided', 'declined', 'failed'] as const;
export type AchState = (typeof ACH_STATES)[number];

/** A debit takes money from the account (a check charge); a credit pays into it (a refund, an unmatched check credit). */
export type AchDirection = 'debit' | 'credit';

/** The moves the store may make, from -> allowed targets; every transition command checks its `from` against this. */
export const ACH_TRANSITIONS: Readonly<Record<AchState, readonly AchState[]>> = {
  submitting: ['pending', 'declined', 'failed'],
  pending: ['voiding', 'voided', 'originated', 'returned'],
  voiding: ['voided', 'pending', 'originated'],
  originated: ['settled', 'returned'],
  settled: ['returned'],
  returned: [],
  voided: [],
  declined: [],
  failed: [],
};

export function achTransitionAllowed(from: AchState, to: AchState): boolean {
  return ACH_TRANSITIONS[from].includes(to);
}

/** States whose money has not settled: a debit's amount sits in the merchant's ach_pending account. */
export const ACH_UNSETTLED_STATES: readonly AchState[] = ['pending', 'voiding', 'originated'];

/**
 * The status a check transaction shows (`status_details.status`, both
 * dialects: accept.blue's enum has every one of these).
 */
export const ACH_STATUS_NAMES: Readonly<Record<AchState, string>> = {
  submitting: 'pending',
  pending: 'pending',
  voiding: 'pending',
  originated: 'originated',
  settled: 'settled',
  returned: 'returned',
  voided: 'voided',
  declined: 'declined',
  failed: 'error',
};

/** The entry states a status filter selects for checks. */
export function achStatesShowing(statuses: readonly string[]): AchState[] {
  return ACH_STATES.filter((state) => statuses.includes(ACH_STATUS_NAMES[state]));
}

// Returns -----------------------------------------------------------------------

/** NACHA return codes Payrail names; a network may report others, shown as reported. */
export const ACH_RETURN_REASONS: Readonly<Record<string, string>> = {
  R01: 'Insufficient funds',
  R02: 'Account closed',
  R03: 'No account / unable to locate account',
  R04: 'Invalid account number structure',
  R05: 'Unauthorized debit to consumer account using corporate SEC code',
  R06: 'Returned per ODFI request',
  R07: 'Authorization revoked by customer',
  R08: 'Payment stopped',
  R09: 'Uncollected funds',
  R10: 'Customer advises not authorized',
  R16: 'Account frozen',
  R20: 'Non-transaction account',
  R29: 'Corporate customer advises not authorized',
};

/** The text of a return code: the network's own text when it gave one, else Payrail's. */
export function returnReasonOf(code: string, networkText: string | null = null): string {
  if (networkText !== null && networkText.trim() !== '') return networkText.trim().slice(0, 255);
  return ACH_RETURN_REASONS[code] ?? `Return code ${code}`;
}

/** A return code as NACHA writes them (R plus two digits); anything else from a network is kept as text only. */
export const RETURN_CODE_PATTERN = /^R[0-9]{2}$/;

// Refusals ----------------------------------------------------------------------

/** The error code a refused check entry records (shape B's error.code, status_details.error_code), whoever records the answer: the request or the worker. */
export const ACH_REFUSAL_CODES = { declined: 'check_declined', failed: 'ach_network_error' } as const;

/** The refusal's text when the network gave none. */
export const ACH_REFUSAL_TEXTS = {
  declined: 'declined by the ACH network',
  failed: 'the ACH network could not process the entry',
} as const;

// Voids and refunds -------------------------------------------------------------

/** Why a check in `state` cannot be voided now, or null. */
export function achVoidProblem(state: AchState): string | null {
  if (state === 'pending') return null;
  if (state === 'voided') return 'the check is already voided';
  if (state === 'voiding') return 'a void of the check is in progress';
  if (state === 'submitting') return 'the check is still being submitted; void it once it is pending';
  return 'a check can be voided only before it is originated; refund it once settled';
}

/** Why a check charge in `state`, made at `createdAtMs`, cannot be refunded at `nowMs` (both on the same clock: the merchant's ACH clock), or null. */
export function achRefundProblem(state: AchState, createdAtMs: number, nowMs: number): string | null {
  if (state === 'pending' || state === 'voiding') return 'a check not yet originated is voided, not refunded';
  if (state !== 'settled') return `a ${ACH_STATUS_NAMES[state]} check cannot be refunded`;
  if (nowMs < refundableFromMs(createdAtMs)) {
    return `a check can be refunded from ${REFUND_AFTER_BUSINESS_DAYS} business days after it was processed (${new Date(refundableFromMs(createdAtMs)).toISOString()})`;
  }
  return null;
}
