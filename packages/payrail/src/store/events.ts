// The event log (docs/api-decisions.md section 11): one row per change,
// inserted in the change's own transaction (a transactional outbox), read by
// the events API and fanned out to webhook deliveries by the delivery worker.
import type { Db, Tx } from './db.ts';
import { insertRows } from './multi-row.ts';

export interface EventRow {
  pk: number;
  merchant_id: string;
  type: string;
  data_json: string;
  created_at_ms: number;
}

const EVENT_COLUMNS = 'pk, merchant_id, type, data_json, created_at_ms';

/**
 * The `fanned_out` of a new event of the merchant `merchantIdSql` (an SQL
 * expression: a parameter or a column): 0, for the delivery worker to fan it
 * out, when the merchant has an enabled webhook endpoint; else 1, as if fanned
 * out already, since it has nobody to go to (an endpoint added afterwards does
 * not get it: docs/api-decisions.md section 11). Most merchants have no
 * endpoint, and then an event costs its insert and nothing more: no update
 * of the row (a new version of it, with its data, on PostgreSQL), no worker
 * commit. Measured on PostgreSQL: the fan-out update was 31 us of server
 * time per event, three events per transfer.
 */
export function newEventFannedOutSql(merchantIdSql: string): string {
  return `CASE WHEN EXISTS (SELECT 1 FROM webhook_endpoints en WHERE en.merchant_id = ${merchantIdSql} AND en.enabled = 1) THEN 0 ELSE 1 END`;
}

/** The columns of a new event, and one row's VALUES item (its merchant id is given twice: the column and the fan-out test). */
const NEW_EVENT_HEAD = 'INSERT INTO events (merchant_id, type, data_json, created_at_ms, fanned_out)';
const NEW_EVENT_TUPLE = `(?, ?, ?, ?, ${newEventFannedOutSql('?')})`;

/** One INSERT, in the caller's transaction: the whole cost of an event on the path of the change. */
export async function insertEvent(tx: Tx, event: { merchantId: string; type: string; dataJson: string; nowMs: number }): Promise<void> {
  await tx.run(`${NEW_EVENT_HEAD} VALUES ${NEW_EVENT_TUPLE}`, [event.merchantId, event.type, event.dataJson, event.nowMs, event.merchantId]);
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
 * Fans out up to `limit` events not fanned out yet: marks them and, in the
 * same transaction, makes one pending delivery per enabled endpoint of the
 * event's merchant that subscribes to its type and existed when it happened,
 * due now or, for an endpoint paused after a failure, when its pause ends.
 * On PostgreSQL several workers may run this at once; rows another worker
 * holds are skipped, so an event is fanned out once. Returns how many events.
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
    await tx.run(
      `INSERT INTO webhook_deliveries (event_pk, endpoint_id, merchant_id, status, attempts, next_attempt_at_ms, created_at_ms, updated_at_ms)
       SELECT ev.pk, en.id, ev.merchant_id, 'pending', 0, CASE WHEN en.paused_until_ms > ? THEN en.paused_until_ms ELSE ? END, ?, ?
       FROM events ev JOIN webhook_endpoints en ON en.merchant_id = ev.merchant_id
       WHERE ev.pk IN (${pks.map(() => '?').join(', ')}) AND en.enabled = 1 AND en.created_at_ms <= ev.created_at_ms
         AND (en.event_types = '' OR en.event_types LIKE '% ' || ev.type || ' %')
       ORDER BY ev.pk`,
      [nowMs, nowMs, nowMs, nowMs, ...pks],
    );
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

/** Several events by multi-row INSERT, in their order (their pks, and so their delivery order, follow it). */
export async function insertEvents(tx: Tx, events: ReadonlyArray<{ merchantId: string; type: string; dataJson: string; nowMs: number }>): Promise<void> {
  await insertRows(
    tx,
    NEW_EVENT_HEAD,
    5,
    events.map((e) => [e.merchantId, e.type, e.dataJson, e.nowMs, e.merchantId]),
    NEW_EVENT_TUPLE,
  );
}
