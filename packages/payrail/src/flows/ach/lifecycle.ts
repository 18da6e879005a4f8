// The ACH lifecycle after submission (behaviour.md section 17): the worker's
// sweep claims due entries in bounded batches (store/ach/entries.ts
// claimDueAchEntries, under a lease so a crashed worker's claims lapse) and
// asks each entry's network about it:
//   submitting  sent again with the same reference once its first call is
//               over (entry-resend.ts), then accepted or refused;
//   voiding     the void asked again: voided, or back to pending;
//   pending, originated, settled
//               the network's status applied as the foundation transitions
//               (entry-status.ts): originated, settled, returned, voided.
// Every state change goes through store/ach/transitions.ts, each a guarded
// move with its posting and event, so two processes noticing the same news
// move the entry, and its money, once. An entry of a network other than the
// configured one is never guessed at: an error is logged and it is left.
import type { AchState } from '../../domain/ach.ts';
import { ACH_STUCK_RECHECK_MS } from '../../domain/ach-schedule.ts';
import { ACH_NETWORK_TIMEOUT_MS } from '../../providers/ach-network.ts';
import { type ClaimedAchEntry, claimDueAchEntries, rescheduleAchEntry } from '../../store/ach/entries.ts';
import { retryVoid, resubmitEntry } from './entry-resend.ts';
import { followEntryStatus } from './entry-status.ts';
import { type AchLifecycleDeps, errorText, reschedule, type EntryStep } from './lifecycle-context.ts';

export { type AchLifecycleDeps, achLifecycleDepsOf } from './lifecycle-context.ts';

/** Entries handled per batch; their network calls run concurrently. */
export const ACH_SWEEP_BATCH_MAX = 25;
/**
 * A claimed entry is not claimed again before this: one entry costs at most
 * one network call (bounded by ACH_NETWORK_TIMEOUT_MS) and a few writes.
 */
export const ACH_CLAIM_LEASE_MS = 4 * ACH_NETWORK_TIMEOUT_MS;

/** One sweep of due entries; returns how many were claimed. */
export async function sweepDueAchEntries(deps: AchLifecycleDeps, limit = ACH_SWEEP_BATCH_MAX): Promise<number> {
  const nowMs = deps.clock.nowMs();
  const claimed = await claimDueAchEntries(deps.db, { nowMs, leaseMs: ACH_CLAIM_LEASE_MS, limit });
  await advanceClaimedEntries(deps, claimed);
  return claimed.length;
}

/** Each claimed entry looked at (concurrently); returns the state each ended in, null where it did not move. */
export function advanceClaimedEntries(deps: AchLifecycleDeps, claimed: readonly ClaimedAchEntry[]): Promise<Array<AchState | null>> {
  return Promise.all(claimed.map((entry) => advanceAchEntry(deps, entry)));
}

/**
 * Looks at one claimed entry; returns the state it moved to, or null. An
 * unexpected failure (the store) is logged and the entry left to its lease,
 * so one entry never stops the others of its batch.
 */
export async function advanceAchEntry(deps: AchLifecycleDeps, entry: ClaimedAchEntry): Promise<AchState | null> {
  try {
    const nowMs = deps.clock.nowMs();
    const network = deps.network;
    if (network === null || network.name !== entry.network) {
      deps.log.error(
        { check: entry.charge_pk, state: entry.state, network: entry.network, configured: network?.name ?? 'none' },
        'ACH entry of a network that is not configured: left as it is (configure PAYRAIL_ACH_NETWORK to that network to follow it)',
      );
      await rescheduleAchEntry(deps.db, { chargePk: entry.charge_pk, state: entry.state, nextCheckAtMs: nowMs + ACH_STUCK_RECHECK_MS, nowMs });
      return null;
    }
    const step: EntryStep = { deps, network, entry, nowMs, networkNowMs: nowMs + (await deps.achClockOffsetMs(entry.merchant_id)) };
    switch (entry.state) {
      case 'submitting':
        return await resubmitEntry(step);
      case 'voiding':
        return await retryVoid(step);
      case 'pending':
      case 'originated':
      case 'settled':
        return await followEntryStatus(step);
      default:
        // A final entry is never asked about again.
        await reschedule(step, null);
        return null;
    }
  } catch (error) {
    deps.log.error(
      { check: entry.charge_pk, state: entry.state, err: errorText(error) },
      'ACH entry could not be looked at; its claim lapses and it is tried again',
    );
    return null;
  }
}
