// The audit trail (table audit_events): append and read, nothing else. No
// statement here or anywhere in the store updates or deletes an event
// (test/audit.test.ts reads the store's source to make sure), so the trail
// is append-only for Payrail's own code.
import {
  type AuditActor,
  type AuditActorKind,
  type AuditEvent,
  type AuditOutcome,
  AUDIT_DETAIL_LENGTH_MAX,
  AUDIT_TEXT_LENGTH_MAX,
  clip,
} from '../domain/audit.ts';
import type { Tx } from './db.ts';

export interface AuditEventRow {
  id: number;
  at_ms: number;
  actor_kind: AuditActorKind;
  actor_id: string | null;
  actor_label: string | null;
  action: string;
  target: string | null;
  merchant_id: string | null;
  client_address: string | null;
  outcome: AuditOutcome;
  detail: string | null;
}

/** The row of an event as the store keeps it; text is cut to its limits here, once. */
export function auditRow(actor: AuditActor, event: AuditEvent, outcome: AuditOutcome, atMs: number): Omit<AuditEventRow, 'id'> {
  return {
    at_ms: atMs,
    actor_kind: actor.kind,
    actor_id: clip(actor.id, AUDIT_TEXT_LENGTH_MAX),
    actor_label: clip(actor.label, AUDIT_TEXT_LENGTH_MAX),
    action: event.action,
    target: clip(event.target, AUDIT_TEXT_LENGTH_MAX),
    merchant_id: clip(event.merchantId ?? null, AUDIT_TEXT_LENGTH_MAX),
    client_address: clip(actor.address, AUDIT_TEXT_LENGTH_MAX),
    outcome,
    detail: clip(event.detail ?? null, AUDIT_DETAIL_LENGTH_MAX),
  };
}

/** An audited action's event, handed to the store command that does the action (see appendAuditNote). */
export interface AuditNote {
  readonly actor: AuditActor;
  readonly event: AuditEvent;
  readonly atMs: number;
}

/**
 * Appends an audited action's event (outcome success) in the command's own
 * transaction, so the action is never done without its event nor an event kept
 * for an action that rolled back; `refine` adds what only the result knows.
 */
export async function appendAuditNote(tx: Tx, note: AuditNote, refine?: Partial<AuditEvent>): Promise<void> {
  await insertAuditEvent(tx, auditRow(note.actor, { ...note.event, ...refine }, 'success', note.atMs));
}

/** Appends an event inside a command's transaction, so the action and its event commit together. */
export async function appendAudit(tx: Tx, actor: AuditActor, event: AuditEvent, outcome: AuditOutcome, atMs: number): Promise<void> {
  await insertAuditEvent(tx, auditRow(actor, event, outcome, atMs));
}

export async function insertAuditEvent(tx: Tx, row: Omit<AuditEventRow, 'id'>): Promise<void> {
  await tx.run(
    `INSERT INTO audit_events (at_ms, actor_kind, actor_id, actor_label, action, target, merchant_id, client_address, outcome, detail)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [row.at_ms, row.actor_kind, row.actor_id, row.actor_label, row.action, row.target, row.merchant_id, row.client_address, row.outcome, row.detail],
  );
}

export interface AuditEventFilters {
  readonly action: string | null;
  /** Inclusive lower bound. */
  readonly fromMs: number | null;
  /** Exclusive upper bound. */
  readonly toMs: number | null;
  /** Keyset cursor: only events with a smaller id. */
  readonly beforeId: number | null;
}

/** Up to `limit` events matching the filters, newest first. */
export async function listAuditEvents(tx: Tx, filters: AuditEventFilters, limit: number): Promise<AuditEventRow[]> {
  const where: string[] = [];
  const params: Array<string | number> = [];
  if (filters.action !== null) {
    where.push('action = ?');
    params.push(filters.action);
  }
  if (filters.fromMs !== null) {
    where.push('at_ms >= ?');
    params.push(filters.fromMs);
  }
  if (filters.toMs !== null) {
    where.push('at_ms < ?');
    params.push(filters.toMs);
  }
  if (filters.beforeId !== null) {
    where.push('id < ?');
    params.push(filters.beforeId);
  }
  params.push(limit);
  return tx.all<AuditEventRow>(
    `SELECT id, at_ms, actor_kind, actor_id, actor_label, action, target, merchant_id, client_address, outcome, detail FROM audit_events
     ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`} ORDER BY id DESC LIMIT ?`,
    params,
  );
}
