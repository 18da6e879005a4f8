// The events API (docs/api-decisions.md sections 11 and 14): list (newest
// first, type and time filters, cursor pagination), read one, re-send one to
// the merchant's endpoints. An event on the wire is
// `{id, type, created_at, livemode, data}`; `data` is stored as the JSON text
// it was written as and spliced in unparsed.
import type { Config } from '../../config.ts';
import type { Clock } from '../../domain/clock.ts';
import { parseIsoTimestamp, timestampRefusal } from '../../domain/iso-time.ts';
import { EVENT_TYPES, isEventType } from '../../domain/webhooks.ts';
import { fail } from '../../errors.ts';
import type { Db } from '../../store/db.ts';
import type { EventRow } from '../../store/events.ts';
import { eventOf, eventPage, resendEvent as resendEventOf } from '../../store/webhooks/events.ts';
import { pageCursor, pageLimit } from '../common/list-paging.ts';

export const EVENT_LIST_LIMIT_DEFAULT = 10;
export const EVENT_LIST_LIMIT_MAX = 100;

export interface EventDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly config: Pick<Config, 'environment'>;
}

const EVENT_ID_PATTERN = /^evt_([1-9][0-9]{0,15})$/;

export const eventIdOf = (pk: number): string => `evt_${pk}`;

/** The event's pk, or null when `id` is not an event id. */
export function eventPkOf(id: string): number | null {
  const match = EVENT_ID_PATTERN.exec(id);
  return match === null ? null : Number(match[1]);
}

/** The event as JSON text, exactly the body a webhook delivery posts. */
export function eventJson(row: EventRow, livemode: boolean): string {
  const head = JSON.stringify({
    id: eventIdOf(Number(row.pk)),
    type: row.type,
    created_at: new Date(Number(row.created_at_ms)).toISOString(),
    livemode,
  });
  return `${head.slice(0, -1)},"data":${row.data_json}}`;
}

export const livemodeOf = (config: Pick<Config, 'environment'>): boolean => config.environment === 'production';

export interface EventListQuery {
  readonly type?: string | undefined;
  readonly created_from?: string | undefined;
  readonly created_to?: string | undefined;
  readonly limit?: string | undefined;
  readonly starting_after?: string | undefined;
  readonly ending_before?: string | undefined;
}

function bound(name: string, text: string | undefined, upper: boolean): number | null {
  if (text === undefined) return null;
  const ms = parseIsoTimestamp(text);
  if (ms === null) fail('invalid_request', timestampRefusal(name, text));
  // Upper bounds are inclusive on the wire (docs/api-decisions.md section 14).
  return upper ? ms + 1 : ms;
}

/** `{data: [event], has_more}` as JSON text, newest first. */
export async function eventListJson(deps: EventDeps, merchantId: string, query: EventListQuery): Promise<string> {
  if (query.type !== undefined && !isEventType(query.type)) fail('invalid_request', `type must be one of ${EVENT_TYPES.join(', ')}`);
  const limit = pageLimit(query.limit, EVENT_LIST_LIMIT_DEFAULT, EVENT_LIST_LIMIT_MAX);
  const cursor = pageCursor(query);
  const cursorPk = cursor === null ? null : eventPkOf(cursor.value);
  if (cursor !== null && cursorPk === null) fail('invalid_request', `${cursor.name} must be an event id (evt_...)`);
  const filters = {
    type: query.type ?? null,
    createdFromMs: bound('created_from', query.created_from, false),
    createdBeforeMs: bound('created_to', query.created_to, true),
    beforePk: cursor?.name === 'starting_after' ? cursorPk : null,
    afterPk: cursor?.name === 'ending_before' ? cursorPk : null,
  };
  if (filters.createdFromMs !== null && filters.createdBeforeMs !== null && filters.createdFromMs >= filters.createdBeforeMs) {
    fail('invalid_request', 'created_from must not be after created_to');
  }
  const rows = await eventPage(deps.db, merchantId, cursorPk, filters, limit + 1);
  // A cursor names one of the merchant's events, as GET /api/v2/events/:id would find it (a pruned one no longer does).
  if (rows === 'unknown_cursor') fail('invalid_request', `${cursor!.name} ${cursor!.value.slice(0, 40)} is not one of your events`);
  const livemode = livemodeOf(deps.config);
  const shown = rows.slice(0, limit);
  // A previous page comes nearest first: turned newest first, as every page is.
  if (filters.afterPk !== null) shown.reverse();
  const page = shown.map((row) => eventJson(row, livemode));
  return `{"data":[${page.join(',')}],"has_more":${rows.length > limit}}`;
}

async function eventRowOf(deps: Pick<EventDeps, 'db'>, merchantId: string, id: string): Promise<EventRow> {
  const pk = eventPkOf(id);
  const row = pk === null ? undefined : await eventOf(deps.db, merchantId, pk);
  if (row === undefined) fail('not_found', `event ${id.slice(0, 40)} not found`);
  return row;
}

export async function eventOfJson(deps: EventDeps, merchantId: string, id: string): Promise<string> {
  return eventJson(await eventRowOf(deps, merchantId, id), livemodeOf(deps.config));
}

/** Sends the event again to every enabled endpoint subscribed to its type; says how many deliveries were queued. */
export async function resendEvent(deps: EventDeps, merchantId: string, id: string): Promise<{ id: string; deliveries: number }> {
  const row = await eventRowOf(deps, merchantId, id);
  const deliveries = await resendEventOf(deps.db, merchantId, { pk: Number(row.pk), type: row.type }, deps.clock.nowMs());
  return { id, deliveries };
}
