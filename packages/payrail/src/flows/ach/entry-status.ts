// An accepted entry (pending, originated, settled and still watched for
// returns) asked about at its network, and what the network reported applied
// through the entry's transitions (store/ach/transitions.ts), one guarded
// move at a time: a network that reports a step Payrail has not seen yet
// (settled, for an entry still pending here) is applied as the moves in
// between (originated, then settled), each with its event and posting.
// Payrail also settles an originated entry, debit or credit, on its own rule
// (domain/ach.ts settlesAtMs) when the network says only "originated" (as
// Authorize.net does for debits and refunds alike): settling a credit posts
// nothing, but makes it final, so it stops being polled and its account
// number can be erased after its retention.
import { type AchState, returnReasonOf, settlesAtMs } from '../../domain/ach.ts';
import { achNextCheckAtMs, achRetryDelayMs, ACH_STUCK_RECHECK_MS } from '../../domain/ach-schedule.ts';
import type { AchEntryReport } from '../../providers/ach-network.ts';
import type { AchEntryRow } from '../../store/ach/entries.ts';
import { type AchMove, applyNetworkVoidOf, originateAchEntry, returnAchEntry, settleAchEntry } from '../../store/ach/transitions.ts';
import { entryQuery, errorText, lastWaitMs, moveBase, reschedule, serviceTimeOf, type EntryStep } from './lifecycle-context.ts';
import { statusWithDeadline } from './network-calls.ts';

/** Asks about the entry and applies the report; returns the state it moved to, or null when it did not move. */
export async function followEntryStatus(step: EntryStep): Promise<AchState | null> {
  const { entry, deps } = step;
  if (entry.network_ref === null) {
    deps.log.error({ check: entry.charge_pk, state: entry.state }, 'accepted ACH entry has no network reference: it cannot be asked about');
    await reschedule(step, step.nowMs + ACH_STUCK_RECHECK_MS);
    return null;
  }
  let report: AchEntryReport;
  try {
    report = await statusWithDeadline(step.network, entryQuery(step, entry.network_ref));
  } catch (error) {
    deps.log.warn({ check: entry.charge_pk, network: step.network.name, err: errorText(error) }, 'ACH network did not answer about an entry; will ask again');
    await reschedule(step, step.nowMs + achRetryDelayMs(lastWaitMs(step)));
    return null;
  }
  return applyReport(step, report);
}

async function applyReport(step: EntryStep, report: AchEntryReport): Promise<AchState | null> {
  const { entry } = step;
  switch (report.state) {
    case 'pending':
      await reschedule(step, nextCheck(step, entry));
      return null;
    case 'originated':
      return reachSettlement(step, report.originatedAtMs, null);
    case 'settled':
      return reachSettlement(step, report.originatedAtMs, report.settledAtMs);
    case 'returned': {
      const moved = await returnAchEntry(step.deps.db, {
        ...moveBase(step, null),
        returnedAtMs: report.returnedAtMs,
        returnCode: report.returnCode,
        returnReason: returnReasonOf(report.returnCode, report.returnReason),
      });
      return movedTo(step, moved);
    }
    case 'voided':
      return applyNetworkVoid(step);
  }
}

/**
 * Moves the entry on to originated and, when the network reports it settled
 * (or an originated entry reached its own settlement time), to settled.
 * `settledAtMs` null: the network says only originated.
 */
async function reachSettlement(step: EntryStep, originatedAtMs: number, reportedSettledAtMs: number | null): Promise<AchState | null> {
  let current: AchEntryRow = step.entry;
  let reached: AchState | null = null;
  // Each move writes when the entry is asked about next in its own transaction, so a crash right after it loses nothing.
  if (current.state === 'pending') {
    const next = nextCheck(step, { ...current, state: 'originated', originated_at_ms: originatedAtMs });
    const moved = await originateAchEntry(step.deps.db, { ...moveBase(step, next), originatedAtMs });
    if (moved.kind === 'stale') return staleNote(step, moved.state);
    current = moved.entry;
    reached = 'originated';
  }
  const ownSettlementMs = current.originated_at_ms !== null ? settlesAtMs(current.originated_at_ms) : null;
  const settledAtMs = reportedSettledAtMs ?? (ownSettlementMs !== null && step.networkNowMs >= ownSettlementMs ? ownSettlementMs : null);
  if (current.state === 'originated' && settledAtMs !== null) {
    const next = nextCheck(step, { ...current, state: 'settled', settled_at_ms: settledAtMs });
    const moved = await settleAchEntry(step.deps.db, { ...moveBase(step, next), settledAtMs });
    if (moved.kind === 'stale') return staleNote(step, moved.state);
    reached = 'settled';
  }
  // Nothing moved: where the entry is decides when it is asked about next (and whether ever again).
  if (reached === null) await reschedule(step, nextCheck(step, current));
  return reached;
}

/** The network voided an entry Payrail had not asked to void (or whose void's answer was lost). */
async function applyNetworkVoid(step: EntryStep): Promise<AchState | null> {
  const { entry, deps } = step;
  if (entry.state !== 'pending') {
    deps.log.error(
      { check: entry.charge_pk, state: entry.state, network: step.network.name },
      'ACH network reports an entry voided after it was originated: left as it is; check it at the network',
    );
    await reschedule(step, step.nowMs + ACH_STUCK_RECHECK_MS);
    return null;
  }
  // One command: nothing is left half way for the network to be asked about again (it would refuse to void an entry it ended).
  return movedTo(step, await applyNetworkVoidOf(deps.db, moveBase(step, null)));
}

/** When an entry in its current state is asked about next, on the service clock. */
export function nextCheck(step: EntryStep, entry: AchEntryRow): number | null {
  const ownSettlementMs = entry.state === 'originated' && entry.originated_at_ms !== null ? settlesAtMs(entry.originated_at_ms) : null;
  return serviceTimeOf(
    step,
    achNextCheckAtMs({
      state: entry.state,
      nowMs: step.networkNowMs,
      settledAtMs: entry.settled_at_ms,
      returnWatchMs: step.network.returnWatchMs,
      settlesAtMs: ownSettlementMs,
    }),
  );
}

function movedTo(step: EntryStep, moved: AchMove): AchState | null {
  return moved.kind === 'moved' ? moved.entry.state : staleNote(step, moved.state);
}

/** Another process moved the entry first: it set the next check then, so nothing is left to do. */
function staleNote(step: EntryStep, state: AchState | null): null {
  step.deps.log.debug({ check: step.entry.charge_pk, saw: step.entry.state, now: state }, 'ACH entry moved by another process meanwhile');
  return null;
}
