// What the stored-customer flows share (docs/api-decisions.md section 15):
// who is asking, paging, and reading ids from paths.
import { parseStoredId } from '../../domain/payment-source.ts';
import type { WireDialect } from '../../domain/wire-dialect.ts';
import { ApiError, type ErrorName, fail } from '../../errors.ts';

export interface Owner {
  readonly merchantId: string;
  readonly sourceId: string;
  /** How the caller reads answers; absent: the section 15 views (`spec`). */
  readonly wireDialect?: WireDialect;
}

export const STORED_LIST_LIMIT_DEFAULT = 10;
export const STORED_LIST_LIMIT_MAX = 100;
export const STORED_LIST_OFFSET_MAX = 100_000;

export interface PageQuery {
  readonly limit?: string | undefined;
  readonly offset?: string | undefined;
  /** accept.blue's `asc` (default: oldest first) or `desc`. */
  readonly order?: string | undefined;
}

function integer(name: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  if (!/^[0-9]{1,9}$/.test(text) || Number(text) < min || Number(text) > max) fail('invalid_request', `${name} must be an integer from ${min} to ${max}`);
  return Number(text);
}

export function pageOf(query: PageQuery): { limit: number; offset: number; descending: boolean } {
  if (query.order !== undefined && query.order !== 'asc' && query.order !== 'desc') failOn('order', 'invalid_request', 'order must be asc or desc');
  return {
    limit: integer('limit', query.limit, STORED_LIST_LIMIT_DEFAULT, 1, STORED_LIST_LIMIT_MAX),
    offset: integer('offset', query.offset, 0, 0, STORED_LIST_OFFSET_MAX),
    descending: query.order === 'desc',
  };
}

/** A path id: not one, or not the merchant's, is not_found alike. */
export function idOf(what: string, text: string): number {
  const pk = parseStoredId(text);
  if (pk === null) fail('not_found', `${what} ${text.slice(0, 40)} not found`);
  return pk;
}

/** fail() naming the request field the refusal is about (accept.blue's error_details name it). */
export function failOn(field: string, error: ErrorName, message: string): never {
  throw new ApiError(error, message, undefined, field);
}
