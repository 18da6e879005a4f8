// The audit trail's flows: recording an event with the action it describes,
// recording a failure, and reading the trail back for the panel and the CLI.
//
// An action's event is written in the action's own transaction (audited:
// the store command appends it), so an action is never done without its
// event nor an event kept for an action that rolled back. A refused action
// rolls its transaction back, so its event (outcome failure or denied) is
// written by a second, small transaction afterwards.
import { type AuditActor, type AuditEvent, type AuditOutcome, SYSTEM_ACTOR } from '../../domain/audit.ts';
import type { Clock } from '../../domain/clock.ts';
import { parseKey } from '../../domain/credentials.ts';
import { isApiError } from '../../errors.ts';
import type { AuditEventFilters, AuditEventRow, AuditNote } from '../../store/audit-events.ts';
import type { Db } from '../../store/db.ts';
import { auditEventsPage, recordAuditEvent } from '../../store/operations/audit-trail.ts';

export type { AuditActor, AuditEvent, AuditEventRow, AuditNote };
export { SYSTEM_ACTOR };

export interface AuditDeps {
  readonly db: Db;
  readonly clock: Clock;
}

/** Appends an event in a transaction of its own. */
export async function recordAudit(deps: AuditDeps, actor: AuditActor, event: AuditEvent, outcome: AuditOutcome): Promise<void> {
  await recordAuditEvent(deps.db, actor, event, outcome, deps.clock.nowMs());
}

/**
 * Runs a store command that does an audited action and appends its event
 * (appendAuditNote) in its own transaction. When the action is refused with an
 * ApiError (by the command or by the flow deciding on its answer inside
 * `run`), the event is recorded with outcome failure and the error's code by
 * a second, small transaction, and the error is passed on.
 */
export async function audited<T>(deps: AuditDeps, actor: AuditActor, event: AuditEvent, run: (note: AuditNote) => Promise<T>): Promise<T> {
  try {
    return await run({ actor, event, atMs: deps.clock.nowMs() });
  } catch (error) {
    if (isApiError(error)) await recordAudit(deps, actor, { ...event, detail: `${error.error}: ${error.message}` }, 'failure');
    throw error;
  }
}

/** Longest header looked at for a key id; the credential checks refuse longer ones anyway. */
const PRESENTED_LENGTH_MAX = 512;

/** The key inside an API-KEY header or a Basic (key:PIN) or Bearer Authorization header, parsed; null when there is none. */
function presentedKey(header: string | undefined): ReturnType<typeof parseKey> {
  if (header === undefined || header.length > PRESENTED_LENGTH_MAX) return null;
  const bearer = /^Bearer (\S+)$/.exec(header);
  if (bearer !== null) return parseKey(bearer[1]!);
  const basic = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header);
  if (basic !== null) return parseKey(Buffer.from(basic[1]!, 'base64').toString('utf8').split(':')[0]!);
  return parseKey(header);
}

/**
 * Records a refused API authentication (PCI DSS 10.2.1.4): the credential
 * presented (the public id part of a key, never its secret or PIN; none when
 * the header held no key), the client's address, the path called and why it
 * was refused. Called by the HTTP layer's authentication hooks with the raw
 * header they were given.
 */
export async function recordAuthFailure(
  deps: AuditDeps,
  attempt: { header: string | undefined; address: string; path: string; reason: string },
): Promise<void> {
  const parsed = presentedKey(attempt.header);
  const actor: AuditActor = { kind: parsed === null ? 'anonymous' : 'credential', id: parsed?.id ?? null, label: null, address: attempt.address };
  await recordAudit(deps, actor, { action: 'api.auth_failure', target: attempt.path, detail: attempt.reason }, 'denied');
}

/** Events shown per page of the panel and printed by `payrail audit` at most. */
export const AUDIT_PAGE_SIZE = 50;
export const AUDIT_LISTED_MAX = 10_000;

/** Up to `limit` events matching the filters, newest first, and the cursor of the next page (null on the last). */
export async function auditEvents(
  deps: Pick<AuditDeps, 'db'>,
  filters: AuditEventFilters,
  limit: number = AUDIT_PAGE_SIZE,
): Promise<{ rows: AuditEventRow[]; nextBefore: number | null }> {
  const size = Math.max(1, Math.min(limit, AUDIT_LISTED_MAX));
  const rows = await auditEventsPage(deps.db, filters, size + 1);
  return { rows: rows.slice(0, size), nextBefore: rows.length > size ? rows[size - 1]!.id : null };
}
