// ISO 8601 timestamps as the list filters take them (docs/api-decisions.md
// section 14: created_from/created_to). A timestamp must say its zone, so the
// same text means the same instant wherever the server runs; Date.parse alone
// would read a zoneless text in the server's local time.

/** Date, time (seconds and up to 9 fraction digits optional) and a zone: Z or ±hh:mm. */
const ISO_TIMESTAMP_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** The longest timestamp text accepted (a 9-digit fraction and a zone offset). */
export const ISO_TIMESTAMP_LENGTH_MAX = 35;

/** Milliseconds since the epoch of an ISO 8601 timestamp with a zone, or null when `text` is not one (or names no real day). */
export function parseIsoTimestamp(text: string): number | null {
  if (text.length > ISO_TIMESTAMP_LENGTH_MAX) return null;
  const match = ISO_TIMESTAMP_PATTERN.exec(text);
  if (match === null) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? '0')) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  // Date.UTC rolls 31 February over into March; a real day survives the round trip.
  if (new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day) return null;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : null;
}

/** A zone offset whose + a URL query turned into a space (`+` means a space there unless written %2B). */
const LOST_PLUS = / \d{2}:\d{2}$/;

/**
 * The refusal of a time filter `name` whose value `text` is no timestamp,
 * the same on every list; `orDate` when the filter also takes a day.
 */
export function timestampRefusal(name: string, text: string, orDate = false): string {
  const hint = LOST_PLUS.test(text) ? ' (a + in a query string must be sent as %2B)' : '';
  return `${name} must be ${orDate ? 'a date (YYYY-MM-DD) or ' : ''}an ISO 8601 timestamp with a time zone, for example 2026-01-31T00:00:00Z${hint}`;
}

/**
 * The last time rendered, kept because rendering one costs more than the
 * rest of a status answer's fields together (about 0.45 us): under load the
 * answers and events of one millisecond, tens of them, share its text.
 */
let lastMs = Number.NaN;
let lastText = '';

/** `ms` since the epoch as ISO 8601 in UTC with milliseconds (2026-01-31T12:00:00.000Z); throws for a time no Date holds. */
export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastText = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastText;
}
