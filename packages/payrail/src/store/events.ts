// The event log (docs/api-decisions.md section 11): one row per change,
// inserted in the change's own transaction (a transactional outbox) with its
// webhook deliveries, read by the events API; the delivery worker sends the
// deliveries.
import type { Db, SqlValue, Tx } from './db.ts';
import { multiRowText, rowChunks } from './multi-row.ts';

export interface EventRow {
  pk: number;
  merchant_id: string;
  type: string;
  data_json: string;
  created_at_ms: number;
}

const EVENT_COLUMNS = 'pk, merchant_id, type, data_json, created_at_ms';

/**
 * Who gets an event (docs/api-decisions.md section 11), written once: the
 * INSERT ... SELECT of one pending delivery per enabled endpoint of the
 * event's merchant that subscribes to its type and existed when it
 * happened, due at `nowSql`, or, for an endpoint paused after a failure,
 * when its pause ends. `events` is a table expression of the events (pk,
 * merchant_id, type, created_at_ms), aliased ev by this text.
 */
export function eventDeliveriesSql(events: string, nowSql: string): string {
  return `INSERT INTO webhook_deliveries (event_pk, endpoint_id, merchant_id, status, attempts, next_attempt_at_ms, created_at_ms, updated_at_ms)
    SELECT ev.pk, en.id, ev.merchant_id, 'pending', 0, CASE WHEN en.paused_until_ms > ${nowSql} THEN en.paused_until_ms ELSE ${nowSql} END, ${nowSql}, ${nowSql}
    FROM ${events} ev JOIN webhook_endpoints en ON en.merchant_id = ev.merchant_id
    WHERE en.enabled = 1 AND en.created_at_ms <= ev.created_at_ms
      AND (en.event_types = '' OR en.event_types LIKE '% ' || ev.type || ' %')
    ORDER BY ev.pk`;
}

/** The deliveries of events just written, made at their own time (statements that write events in a CTE name it here). */
export function newEventDeliveriesSql(events: string): string {
  return eventDeliveriesSql(events, 'ev.created_at_ms');
}

/**
 * New events are written fanned out (1): their deliveries are made with
 * them. 0 marks only rows written before that (migration 013), which the
 * worker still fans out.
 */
const NEW_EVENT_HEAD = 'INSERT INTO events (merchant_id, type, data_json, created_at_ms, fanned_out)';
const NEW_EVENT_TUPLE = '(?, ?, ?, ?, 1)';
const NEW_EVENT_COLUMNS = 4;

/**
 * SQLite: the deliveries of the last `?` events of the table. One writer and
 * keys that only grow (AUTOINCREMENT): right after a statement inserted n
 * events, the n largest keys are exactly its rows. Run whether or not the
 * merchant has an endpoint: about 0.9 us when it has none, less than
 * RETURNING the inserted rows (measured at 4.6-11 us with the endpoint test in it).
 */
const SQLITE_LAST_EVENTS_DELIVERIES = newEventDeliveriesSql(
  '(SELECT pk, merchant_id, type, created_at_ms FROM events WHERE pk > (SELECT MAX(pk) FROM events) - ?)',
);
/** PostgreSQL: keys are handed out to concurrent transactions, so the inserted rows say which of them have an endpoint. */
const PG_LISTENED = 'RETURNING pk, EXISTS (SELECT 1 FROM webhook_endpoints en WHERE en.merchant_id = events.merchant_id AND en.enabled = 1) AS listened';
const PG_EVENTS_DELIVERIES = newEventDeliveriesSql('(SELECT pk, merchant_id, type, created_at_ms FROM events WHERE pk = ANY (?::bigint[]))');

/** One event and its deliveries, in the caller's transaction: the whole cost of an event on the path of the change. */
export async function insertEvent(tx: Tx, event: NewEvent): Promise<void> {
  await insertEvents(tx, [event]);
}

export interface NewEvent {
  readonly merchantId: string;
  readonly type: string;
  readonly dataJson: string;
  readonly nowMs: number;
}

export async function getEvent(tx: Tx, merchantId: string, pk: number): Promise<EventRow | undefined> {
  return tx.get<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE pk = ? AND merchant_id = ?`, [pk, merchantId]);
}

export interface EventFilters {
  type: string | null;
  createdFromMs: number | null;
  /** Exclusive. */
  createdBeforeMs: number | null;
  /** Only events older than this one (the next page's cursor). */
  beforePk: number | null;
  /** Only events newer than this one (the previous page's cursor): then oldest first, for the caller to turn around. */
  afterPk?: number | null;
}

/** The merchant's events, newest first, at most `limit`. */
export async function listEvents(tx: Tx, merchantId: string, filters: EventFilters, limit: number): Promise<EventRow[]> {
  const where = ['merchant_id = ?'];
  const params: Array<string | number> = [merchantId];
  if (filters.type !== null) {
    where.push('type = ?');
    params.push(filters.type);
  }
  if (filters.createdFromMs !== null) {
    where.push('created_at_ms >= ?');
    params.push(filters.createdFromMs);
  }
  if (filters.createdBeforeMs !== null) {
    where.push('created_at_ms < ?');
    params.push(filters.createdBeforeMs);
  }
  if (filters.beforePk !== null) {
    where.push('pk < ?');
    params.push(filters.beforePk);
  }
  const afterPk = filters.afterPk ?? null;
  if (afterPk !== null) {
    where.push('pk > ?');
    params.push(afterPk);
  }
  params.push(limit);
  return tx.all<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE ${where.join(' AND ')} ORDER BY ${afterPk === null ? 'pk DESC' : 'pk'} LIMIT ?`, params);
}

/** The merchant's events after `afterPk`, oldest first (`payrail events tail`). */
export async function eventsAfter(tx: Tx, merchantId: string, afterPk: number, limit: number): Promise<EventRow[]> {
  return tx.all<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE merchant_id = ? AND pk > ? ORDER BY pk LIMIT ?`, [merchantId, afterPk, limit]);
}

/** The newest event pk of the merchant, or 0. */
export async function lastEventPk(tx: Tx, merchantId: string): Promise<number> {
  const row = await tx.get<{ pk: number | null }>('SELECT MAX(pk) AS pk FROM events WHERE merchant_id = ?', [merchantId]);
  return row?.pk === null || row?.pk === undefined ? 0 : Number(row.pk);
}

/**
 * Fans out up to `limit` events written before their deliveries were made
 * with them (fanned_out 0: see NEW_EVENT_HEAD): marks them and, in the same
 * transaction, makes their deliveries as of now. On PostgreSQL several
 * workers may run this at once; rows another worker holds are skipped, so
 * an event is fanned out once. Returns how many events.
 */
export async function fanOutEvents(db: Db, nowMs: number, limit: number): Promise<number> {
  // A read first, so an idle worker writes nothing.
  const any = await db.read((tx) => tx.get('SELECT pk FROM events WHERE fanned_out = 0 LIMIT 1'));
  if (any === undefined) return 0;
  const skipLocked = db.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
  return db.write(async (tx) => {
    const claimed = await tx.all<{ pk: number }>(
      `UPDATE events SET fanned_out = 1 WHERE pk IN (SELECT pk FROM events WHERE fanned_out = 0 ORDER BY pk LIMIT ?${skipLocked}) RETURNING pk`,
      [limit],
    );
    if (claimed.length === 0) return 0;
    const pks = claimed.map((row) => Number(row.pk));
    const events = `(SELECT pk, merchant_id, type, created_at_ms FROM events WHERE pk IN (${pks.map(() => '?').join(', ')}))`;
    // The four times come first in the text (the SELECT list), the keys after them (its FROM).
    await tx.run(eventDeliveriesSql(events, '?'), [nowMs, nowMs, nowMs, nowMs, ...pks]);
    return pks.length;
  });
}

/**
 * Deletes events made before `beforeMs` with their deliveries, oldest first,
 * at most `limit`. Reads the oldest `limit` events by primary key and keeps
 * the old ones among them, so the work is bounded whatever the table holds.
 */
export async function pruneEventsBefore(tx: Tx, beforeMs: number, limit: number): Promise<number> {
  const oldest = await tx.all<{ pk: number; created_at_ms: number }>('SELECT pk, created_at_ms FROM events ORDER BY pk LIMIT ?', [limit]);
  const pks = oldest.filter((row) => Number(row.created_at_ms) < beforeMs).map((row) => Number(row.pk));
  if (pks.length === 0) return 0;
  const list = pks.map(() => '?').join(', ');
  await tx.run(`DELETE FROM webhook_deliveries WHERE event_pk IN (${list})`, pks);
  return (await tx.run(`DELETE FROM events WHERE pk IN (${list})`, pks)).changes;
}

/** Whether the oldest event was made before `beforeMs`: a read, so an idle worker writes nothing. */
export async function hasEventsBefore(tx: Tx, beforeMs: number): Promise<boolean> {
  const row = await tx.get<{ created_at_ms: number }>('SELECT created_at_ms FROM events ORDER BY pk LIMIT 1');
  return row !== undefined && Number(row.created_at_ms) < beforeMs;
}

/**
 * Several events by multi-row INSERT, in their order (their pks, and so
 * their delivery order, follow it), each with its deliveries, in the
 * caller's transaction.
 */
export async function insertEvents(tx: Tx, events: readonly NewEvent[]): Promise<void> {
  const chunks = rowChunks(
    NEW_EVENT_COLUMNS,
    events.map((e) => [e.merchantId, e.type, e.dataJson, e.nowMs]),
    NEW_EVENT_TUPLE,
  );
  if (tx.dialect === 'sqlite') {
    for (const { size, params } of chunks) {
      await tx.run(multiRowText(NEW_EVENT_HEAD, NEW_EVENT_TUPLE, size), params);
      await tx.run(SQLITE_LAST_EVENTS_DELIVERIES, [size]);
    }
    return;
  }
  // Sent together (pipelined), in order; the deliveries follow once the rows say which merchants listen.
  const inserted = await Promise.all(
    chunks.map(({ size, params }) =>
      tx.all<{ pk: number | string; listened: boolean }>(`${multiRowText(NEW_EVENT_HEAD, NEW_EVENT_TUPLE, size)} ${PG_LISTENED}`, params),
    ),
  );
  const listened = inserted
    .flat()
    .filter((row) => row.listened)
    .map((row) => Number(row.pk));
  // The array travels as a parameter (the driver encodes it); the Tx contract's SqlValue does not name arrays.
  if (listened.length > 0) await tx.run(PG_EVENTS_DELIVERIES, [listened as unknown as SqlValue]);
}
