// GET /api/v2/transactions (docs/api-decisions.md sections 10 and 14): the
// merchant's card transactions, newest first, each exactly as
// GET /api/v2/transactions/:id shows it, filtered by status, type and time,
// paged by limit and offset. Every filter is checked here and a bad one is
// refused naming it (query strings are text: nothing is coerced).
import { TRANSACTION_STATUSES, TRANSACTION_TYPES, type TransactionStatus, type TransactionType } from '../../domain/card-lifecycle.ts';
import { DAY_MS } from '../../domain/clock.ts';
import { parseIsoTimestamp, timestampRefusal } from '../../domain/iso-time.ts';
import { fail } from '../../errors.ts';
import type { Service } from '../../service.ts';
import { listFundedTransactions } from '../../store/payin/transactions.ts';
import type { TransactionFilters } from '../../store/transactions.ts';
import { renderCharge } from './charge-answers.ts';
import { FUNDED_TRANSFERS_SHOWN_MAX } from '../transfers/funding.ts';

export const LIST_LIMIT_DEFAULT = 10;
export const LIST_LIMIT_MAX = 100;
/** Deeper pages than this are refused: narrow the time range instead. */
export const LIST_OFFSET_MAX = 100_000;

/** The query string of the list, as received (every value text). */
export interface TransactionListQuery {
  readonly status?: string | undefined;
  readonly type?: string | undefined;
  readonly date_from?: string | undefined;
  readonly date_to?: string | undefined;
  readonly created_from?: string | undefined;
  readonly created_to?: string | undefined;
  readonly limit?: string | undefined;
  readonly offset?: string | undefined;
}

const DATE_PATTERN = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;

/** A YYYY-MM-DD day as [start, end) in ms, or null when `text` is not a real day. */
function utcDay(text: string): [number, number] | null {
  const match = DATE_PATTERN.exec(text);
  if (match === null) return null;
  const startMs = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return new Date(startMs).getUTCDate() === Number(match[3]) && new Date(startMs).getUTCMonth() === Number(match[2]) - 1 ? [startMs, startMs + DAY_MS] : null;
}

/** A time bound: a day (its start, or its end for an upper bound) or an exact ISO 8601 timestamp. */
function bound(name: string, text: string | undefined, upper: boolean, days: boolean): number | null {
  if (text === undefined) return null;
  const day = days ? utcDay(text) : null;
  if (day !== null) return upper ? day[1] : day[0];
  const ms = parseIsoTimestamp(text);
  if (ms === null) fail('invalid_request', timestampRefusal(name, text, days));
  // Upper bounds are inclusive on the wire and exclusive in the store.
  return upper ? ms + 1 : ms;
}

function integer(name: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  if (!/^[0-9]{1,9}$/.test(text) || Number(text) < min || Number(text) > max) fail('invalid_request', `${name} must be an integer from ${min} to ${max}`);
  return Number(text);
}

function oneOf<T extends string>(name: string, text: string | undefined, allowed: readonly T[]): T | null {
  if (text === undefined) return null;
  if (!(allowed as readonly string[]).includes(text)) fail('invalid_request', `${name} must be one of ${allowed.join(', ')}`);
  return text as T;
}

const maxOf = (values: Array<number | null>): number | null => values.reduce<number | null>((a, v) => (v === null ? a : a === null ? v : Math.max(a, v)), null);
const minOf = (values: Array<number | null>): number | null => values.reduce<number | null>((a, v) => (v === null ? a : a === null ? v : Math.min(a, v)), null);

export function parseListQuery(query: TransactionListQuery): { filters: TransactionFilters; page: { limit: number; offset: number } } {
  const status: TransactionStatus | null = oneOf('status', query.status, TRANSACTION_STATUSES);
  const type: TransactionType | null = oneOf('type', query.type, TRANSACTION_TYPES);
  const createdFromMs = maxOf([bound('date_from', query.date_from, false, true), bound('created_from', query.created_from, false, false)]);
  const createdBeforeMs = minOf([bound('date_to', query.date_to, true, true), bound('created_to', query.created_to, true, false)]);
  // A range that ends before it starts is a mistake, refused as the transfer and event lists refuse it.
  if (createdFromMs !== null && createdBeforeMs !== null && createdFromMs >= createdBeforeMs) {
    fail('invalid_request', 'the date range ends before it starts: date_from/created_from must not be after date_to/created_to');
  }
  const page = { limit: integer('limit', query.limit, LIST_LIMIT_DEFAULT, 1, LIST_LIMIT_MAX), offset: integer('offset', query.offset, 0, 0, LIST_OFFSET_MAX) };
  return { filters: { status, type, createdFromMs, createdBeforeMs }, page };
}

/** The list as a JSON array text, each item as GET /api/v2/transactions/:id renders it. */
export async function transactionListJson(deps: Pick<Service, 'db'>, merchantId: string, query: TransactionListQuery): Promise<string> {
  const { filters, page } = parseListQuery(query);
  const found = await listFundedTransactions(deps.db, { merchantId, filters, page, fundedMax: FUNDED_TRANSFERS_SHOWN_MAX });
  return `[${found.map(({ row, funded }) => JSON.stringify(renderCharge(row, funded))).join(',')}]`;
}
