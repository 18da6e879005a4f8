// The worker's steps of a batch of transfers, recorded in one transaction
// (it holds the store's write lock for the statements only: everything was
// decided and rendered before it opened).
import type { Db } from '../db.ts';
import { reschedule } from '../transfers.ts';
import { applyTransitions, type PreparedTransitions } from './transitions.ts';

/** A transfer to try again later, guarded by the version it was read at. */
export interface Reschedule {
  readonly pk: number;
  readonly version: number;
  readonly nextRunAtMs: number | null;
  readonly attempts: number;
}

/** Per reschedule and per prepared transition, in their order, whether it was applied. */
export interface RecordedSteps {
  readonly rescheduled: readonly boolean[];
  readonly transitioned: readonly boolean[];
}

export function recordTransferSteps(
  db: Db,
  input: { readonly reschedules: readonly Reschedule[]; readonly transitions: PreparedTransitions | null; readonly nowMs: number },
): Promise<RecordedSteps> {
  return db.write(async (tx) => {
    // Both sent at once (pipelined on PostgreSQL).
    const [rescheduled, transitioned] = await Promise.all([
      Promise.all(input.reschedules.map((r) => reschedule(tx, r.pk, r.version, r.nextRunAtMs, r.attempts, input.nowMs))),
      input.transitions === null ? [] : applyTransitions(tx, input.transitions),
    ]);
    return { rescheduled, transitioned };
  });
}
