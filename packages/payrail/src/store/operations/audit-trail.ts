// The audit trail as flows reach it outside an audited command: an event
// appended by a transaction of its own (a refused action's event, a refused
// authentication), and a page of the trail read back.
import type { AuditActor, AuditEvent, AuditOutcome } from '../../domain/audit.ts';
import { type AuditEventFilters, type AuditEventRow, appendAudit, listAuditEvents } from '../audit-events.ts';
import type { Db } from '../db.ts';

export async function recordAuditEvent(db: Db, actor: AuditActor, event: AuditEvent, outcome: AuditOutcome, atMs: number): Promise<void> {
  await db.write((tx) => appendAudit(tx, actor, event, outcome, atMs));
}

/** Up to `limit` events matching the filters, newest first. */
export async function auditEventsPage(db: Db, filters: AuditEventFilters, limit: number): Promise<AuditEventRow[]> {
  return db.read((tx) => listAuditEvents(tx, filters, limit));
}
