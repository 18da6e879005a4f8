// The event log's queries and commands the flows submit
// (flows/webhooks/events.ts, tail.ts and retention.ts decide; the statements
// are store/events.ts and store/webhook-deliveries.ts).
import type { Db } from '../db.ts';
import { type EventFilters, type EventRow, eventsAfter, getEvent, hasEventsBefore, lastEventPk, listEvents, pruneEventsBefore } from '../events.ts';
import { queueResend } from '../webhook-deliveries.ts';

export function eventOf(db: Db, merchantId: string, pk: number): Promise<EventRow | undefined> {
  return db.read((tx) => getEvent(tx, merchantId, pk));
}

/**
 * Up to `limit` of the merchant's events; 'unknown_cursor' when `cursorPk`
 * names none of them (as GET /api/v2/events/:id would not find it). The
 * cursor's check and the page are one read.
 */
export function eventPage(db: Db, merchantId: string, cursorPk: number | null, filters: EventFilters, limit: number): Promise<EventRow[] | 'unknown_cursor'> {
  return db.read(async (tx) => {
    if (cursorPk !== null && (await getEvent(tx, merchantId, cursorPk)) === undefined) return 'unknown_cursor';
    return listEvents(tx, merchantId, filters, limit);
  });
}

/** Queues the event again for every enabled endpoint subscribed to its type; answers how many deliveries were queued. */
export function resendEvent(db: Db, merchantId: string, event: { pk: number; type: string }, nowMs: number): Promise<number> {
  return db.write((tx) => queueResend(tx, merchantId, event.pk, event.type, nowMs));
}

export function lastEventPkOf(db: Db, merchantId: string): Promise<number> {
  return db.read((tx) => lastEventPk(tx, merchantId));
}

export function eventsAfterPk(db: Db, merchantId: string, afterPk: number, limit: number): Promise<EventRow[]> {
  return db.read((tx) => eventsAfter(tx, merchantId, afterPk, limit));
}

/** Deletes up to `limit` events older than `beforeMs` with their deliveries; a read first, so nothing to delete writes nothing. */
export async function pruneEvents(db: Db, beforeMs: number, limit: number): Promise<number> {
  if (!(await db.read((tx) => hasEventsBefore(tx, beforeMs)))) return 0;
  return db.write((tx) => pruneEventsBefore(tx, beforeMs, limit));
}
