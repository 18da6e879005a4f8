// The paging parameters the cursor-paged lists share (GET /api/transfers,
// GET /api/v2/events; docs/api-decisions.md section 14): one reading of
// `limit` and of the cursor pair, so both lists refuse alike. What a
// cursor names (a transfer id, an event id) each list checks itself.
import { fail } from '../../errors.ts';

/** Which way a cursor pages: `starting_after` the next page (older items), `ending_before` the previous one (newer items). */
export type CursorName = 'starting_after' | 'ending_before';

/** The page's cursor as given, or null for the first page; both at once are refused. */
export function pageCursor(query: { readonly starting_after?: string | undefined; readonly ending_before?: string | undefined }): {
  readonly name: CursorName;
  readonly value: string;
} | null {
  if (query.starting_after !== undefined && query.ending_before !== undefined) fail('invalid_request', 'send starting_after or ending_before, not both');
  if (query.ending_before !== undefined) return { name: 'ending_before', value: query.ending_before };
  if (query.starting_after !== undefined) return { name: 'starting_after', value: query.starting_after };
  return null;
}

/** `limit` as given (up to three digits, 1 to `maxLimit`), or `defaultLimit` when absent. */
export function pageLimit(text: string | undefined, defaultLimit: number, maxLimit: number): number {
  if (text === undefined) return defaultLimit;
  const limit = /^[0-9]{1,3}$/.test(text) ? Number(text) : Number.NaN;
  if (!(limit >= 1 && limit <= maxLimit)) fail('invalid_request', `limit must be an integer from 1 to ${maxLimit}`);
  return limit;
}
