// The sandbox's ACH clock (behaviour.md section 17): `POST /sandbox/ach/advance`
// and `payrail ach advance` move one merchant's ACH clock forward by whole
// business days (domain/ach.ts addBusinessDays, from the merchant's current
// ACH time), then look at every open entry of that merchant at once, due or
// not, so what the sandbox network now reports is applied before the answer:
// a test drives a check from pending to settled or returned in a few calls.
// Production refuses both: there is no ACH clock but the bank's.
import { type AchState, addBusinessDays } from '../../domain/ach.ts';
import { fail } from '../../errors.ts';
import type { Service } from '../../service.ts';
import { claimOpenAchEntriesOfMerchant, readMerchantAchClockOffsetMs } from '../../store/ach/lifecycle-reads.ts';
import { advanceAchClock } from '../../store/sandbox-ach-clocks.ts';
import { ACH_CLAIM_LEASE_MS, advanceClaimedEntries, achLifecycleDepsOf } from './lifecycle.ts';

export const ACH_ADVANCE_BUSINESS_DAYS_MIN = 1;
export const ACH_ADVANCE_BUSINESS_DAYS_MAX = 30;
/** Entries looked at per pass: a sandbox merchant with more has the rest moved by the worker's sweep. */
export const ACH_ADVANCE_ENTRIES_MAX = 500;
/**
 * Passes over the open entries: a move can make the next one possible at
 * once (a void the network refused goes back to pending, then originates),
 * so the sweep runs again while something moved, at most this often.
 */
const ACH_ADVANCE_PASSES_MAX = 3;

/** The states an advance can move an entry to, each counted in its answer. */
export const ACH_ADVANCE_STATES = ['pending', 'originated', 'settled', 'returned', 'voided', 'declined', 'failed'] as const satisfies readonly AchState[];
export type AchAdvanceState = (typeof ACH_ADVANCE_STATES)[number];

export interface AchAdvanceResult {
  /** The merchant's ACH time after the move (ISO 8601, UTC). */
  readonly ach_time: string;
  readonly business_days: number;
  /** How many entries ended in each state, of those that moved. */
  readonly moved: Record<AchAdvanceState, number>;
}

/** Why `value` cannot be the number of business days to advance, or null. */
export function businessDaysProblem(value: unknown): string | null {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < ACH_ADVANCE_BUSINESS_DAYS_MIN || value > ACH_ADVANCE_BUSINESS_DAYS_MAX) {
    return `business_days must be an integer from ${ACH_ADVANCE_BUSINESS_DAYS_MIN} to ${ACH_ADVANCE_BUSINESS_DAYS_MAX}`;
  }
  return null;
}

export async function advanceSandboxAchClock(service: Service, input: { merchantId: string; businessDays: number }): Promise<AchAdvanceResult> {
  if (service.config.environment !== 'sandbox') fail('sandbox_only');
  const problem = businessDaysProblem(input.businessDays);
  if (problem !== null) fail('invalid_request', problem);
  const nowMs = service.clock.nowMs();
  const offsetMs = await readMerchantAchClockOffsetMs(service.db, input.merchantId);
  if (offsetMs === null) fail('not_found', `merchant ${input.merchantId} does not exist`);
  const achNowMs = nowMs + offsetMs;
  const newOffsetMs = await advanceAchClock(service.db, {
    merchantId: input.merchantId,
    byMs: addBusinessDays(achNowMs, input.businessDays) - achNowMs,
    nowMs,
  });
  const moved = await sweepMerchant(service, input.merchantId);
  return { ach_time: new Date(nowMs + newOffsetMs).toISOString(), business_days: input.businessDays, moved };
}

/** Every open entry of the merchant looked at, again while something moved; counts where the moved ones ended. */
async function sweepMerchant(service: Service, merchantId: string): Promise<Record<AchAdvanceState, number>> {
  const deps = achLifecycleDepsOf(service);
  const endedIn = new Map<number, AchState>();
  for (let pass = 0; pass < ACH_ADVANCE_PASSES_MAX; pass++) {
    const claimed = await claimOpenAchEntriesOfMerchant(service.db, {
      merchantId,
      nowMs: service.clock.nowMs(),
      leaseMs: ACH_CLAIM_LEASE_MS,
      limit: ACH_ADVANCE_ENTRIES_MAX,
    });
    const states = await advanceClaimedEntries(deps, claimed);
    let movedThisPass = 0;
    claimed.forEach((entry, i) => {
      const state = states[i];
      if (state === null || state === undefined) return;
      endedIn.set(entry.charge_pk, state);
      movedThisPass += 1;
    });
    if (movedThisPass === 0) break;
  }
  const counts = Object.fromEntries(ACH_ADVANCE_STATES.map((state) => [state, 0])) as Record<AchAdvanceState, number>;
  for (const state of endedIn.values()) if (state in counts) counts[state as AchAdvanceState] += 1;
  return counts;
}
