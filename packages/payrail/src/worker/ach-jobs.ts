// Worker jobs of checks (behaviour.md section 17): the ACH lifecycle sweep,
// one bounded batch of due entries per call (flows/ach/lifecycle.ts), and
// the erasure of account numbers past their retention
// (flows/ach/account-retention.ts), looked at once a minute.
import { ACH_ERASE_BATCH_MAX, eraseExpiredAchAccounts } from '../flows/ach/account-retention.ts';
import { ACH_SWEEP_BATCH_MAX, achLifecycleDepsOf, sweepDueAchEntries } from '../flows/ach/lifecycle.ts';
import type { Service } from '../service.ts';
import type { Job } from './worker.ts';

/** Erasure is housekeeping: once a minute keeps it prompt without a statement every round. */
const ACH_ERASE_INTERVAL_MS = 60_000;

export function achJobs(service: Service): Job[] {
  const deps = achLifecycleDepsOf(service);
  let nextEraseAtMs = 0;
  return [
    { name: 'ach.lifecycle', batchMax: ACH_SWEEP_BATCH_MAX, runOnce: () => sweepDueAchEntries(deps) },
    {
      name: 'ach.erase-accounts',
      runOnce: async () => {
        const nowMs = service.clock.nowMs();
        if (nowMs < nextEraseAtMs) return 0;
        const erased = await eraseExpiredAchAccounts(service);
        // A full batch means more are waiting: look again next round. Never counted as work, so an idle worker stays idle.
        nextEraseAtMs = erased < ACH_ERASE_BATCH_MAX ? nowMs + ACH_ERASE_INTERVAL_MS : 0;
        return 0;
      },
    },
  ];
}
