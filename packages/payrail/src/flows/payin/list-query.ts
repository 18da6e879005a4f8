// The query parameters the payin API's transaction and batch lists share
// (docs/api-decisions.md section 14, docs/acceptblue-compatibility.md), read
// by the caller's wire dialect. Query strings are text: nothing is coerced,
// and a bad value is refused naming its parameter (accept.blue's
// error_details carry the name). The `spec` dialect keeps its formats and
// messages; the `acceptblue` dialect reads them as accept.blue documents its
// list parameters: ascending by default, and a time bound (epoch
// milliseconds, a date or a timestamp) widened to the whole UTC day.
import { DAY_MS } from '../../domain/clock.ts';
import { parseIsoTimestamp, timestampRefusal } from '../../domain/iso-time.ts';
import type { WireDialect } from '../../domain/wire-dialect.ts';
import { ApiError } from '../../errors.ts';

export const LIST_LIMIT_DEFAULT = 10;
export const LIST_LIMIT_MAX = 100;
/** Deeper pages than this are refused: narrow the time range instead. */
export const LIST_OFFSET_MAX = 100_000;

/** Items of a comma list at most (accept.blue's status filter names 14 statuses). */
const LIST_ITEMS_MAX = 20;

export type ListOrder = 'asc' | 'desc';
export const LIST_ORDERS: readonly ListOrder[] = ['asc', 'desc'];

/** A refusal of query parameter `name`. */
export function refuseParameter(name: string, message: string): never {
  throw new ApiError('invalid_request', message, undefined, name);
}

export function integer(name: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  if (!/^[0-9]{1,9}$/.test(text) || Number(text) < min || Number(text) > max) refuseParameter(name, `${name} must be an integer from ${min} to ${max}`);
  return Number(text);
}

export function page(query: { readonly limit?: string | undefined; readonly offset?: string | undefined }): { limit: number; offset: number } {
  return { limit: integer('limit', query.limit, LIST_LIMIT_DEFAULT, 1, LIST_LIMIT_MAX), offset: integer('offset', query.offset, 0, 0, LIST_OFFSET_MAX) };
}

export function oneOf<T extends string>(name: string, text: string | undefined, allowed: readonly T[]): T | null {
  if (text === undefined) return null;
  if (!(allowed as readonly string[]).includes(text)) refuseParameter(name, `${name} must be one of ${allowed.join(', ')}`);
  return text as T;
}

/** A comma list (accept.blue's explode=false arrays: `status=captured,settled`) of allowed values. */
export function commaList<T extends string>(name: string, text: string | undefined, allowed: readonly T[]): T[] | null {
  if (text === undefined) return null;
  const items = text.split(',');
  if (items.length > LIST_ITEMS_MAX || items.some((item) => !(allowed as readonly string[]).includes(item))) {
    refuseParameter(name, `${name} must be one of ${allowed.join(', ')}`);
  }
  return items as T[];
}

/** The order asked for; the spec dialect lists newest first, accept.blue oldest first. */
export function orderOf(text: string | undefined, dialect: WireDialect): ListOrder {
  return oneOf('order', text, LIST_ORDERS) ?? (dialect === 'acceptblue' ? 'asc' : 'desc');
}

const DATE_PATTERN = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;

/** A YYYY-MM-DD day as [start, end) in ms, or null when `text` is not a real day. */
export function utcDay(text: string): [number, number] | null {
  const match = DATE_PATTERN.exec(text);
  if (match === null) return null;
  const startMs = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return new Date(startMs).getUTCDate() === Number(match[3]) && new Date(startMs).getUTCMonth() === Number(match[2]) - 1 ? [startMs, startMs + DAY_MS] : null;
}

/** A time bound in the spec dialect: a day (its start, or its end for an upper bound) or an exact ISO 8601 timestamp. */
function specBound(name: string, text: string, upper: boolean, days: boolean): number {
  const day = days ? utcDay(text) : null;
  if (day !== null) return upper ? day[1] : day[0];
  const ms = parseIsoTimestamp(text);
  if (ms === null) refuseParameter(name, timestampRefusal(name, text, days));
  // Upper bounds are inclusive on the wire and exclusive in the store.
  return upper ? ms + 1 : ms;
}

/** The latest instant a Date holds (ms); epoch milliseconds past it are no time. */
const TIME_MS_MAX = 8_640_000_000_000_000;

/**
 * A time bound in the accept.blue dialect: epoch milliseconds, a day or a
 * timestamp (WooCommerce sends `YYYY-MM-DDTHH:MM:SSZ`), rounded down to the
 * start of its UTC day, or for an upper bound up to its end (exclusive).
 */
function acceptBlueBound(name: string, text: string, upper: boolean): number {
  let ms: number | null = /^[0-9]{1,16}$/.test(text) && Number(text) <= TIME_MS_MAX ? Number(text) : null;
  ms ??= utcDay(text)?.[0] ?? parseIsoTimestamp(text);
  if (ms === null) {
    refuseParameter(
      name,
      `${name} must be epoch milliseconds, a date (YYYY-MM-DD) or an ISO 8601 timestamp with a time zone, for example 2026-01-31T00:00:00Z`,
    );
  }
  const dayStartMs = Math.floor(ms / DAY_MS) * DAY_MS;
  return upper ? dayStartMs + DAY_MS : dayStartMs;
}

/**
 * `date_from` (`upper` false) or `date_to` as a bound in ms: inclusive lower,
 * exclusive upper. `days`: whether the spec dialect takes a day here too.
 */
export function timeBound(name: string, text: string | undefined, upper: boolean, dialect: WireDialect, days = true): number | null {
  if (text === undefined) return null;
  return dialect === 'acceptblue' ? acceptBlueBound(name, text, upper) : specBound(name, text, upper, days);
}

export const maxOf = (values: Array<number | null>): number | null =>
  values.reduce<number | null>((a, v) => (v === null ? a : a === null ? v : Math.max(a, v)), null);
export const minOf = (values: Array<number | null>): number | null =>
  values.reduce<number | null>((a, v) => (v === null ? a : a === null ? v : Math.min(a, v)), null);
