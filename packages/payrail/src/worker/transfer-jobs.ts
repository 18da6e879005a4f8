// Worker jobs of the transfer API: drive due transfers through their states,
// reconcile waiting ones with card payins, and sweep expired quotes.
import { ADVANCE_BATCH_MAX, advanceDueTransfers } from '../flows/transfers/advance.ts';
import { sweepExpiredQuotes, QUOTE_SWEEP_BATCH_MAX } from '../flows/transfers/quotes.ts';
import { reconcileWaitingTransfers } from '../flows/transfers/reconcile.ts';
import type { Service } from '../service.ts';
import type { Job } from './worker.ts';

/** Quotes live 15 minutes; sweeping them once a minute keeps the table small without a commit every round. */
const QUOTE_SWEEP_INTERVAL_MS = 60_000;

export function createTransferJobs(service: Service): Job[] {
  let lastSweepMs = Number.NEGATIVE_INFINITY;
  return [
    {
      name: 'transfers',
      batchMax: ADVANCE_BATCH_MAX,
      runOnce: async () => (await advanceDueTransfers(service)).claimed,
    },
    {
      name: 'transfer-reconciliation',
      runOnce: () => reconcileWaitingTransfers(service),
    },
    {
      name: 'quote-sweeper',
      runOnce: async () => {
        const nowMs = service.clock.nowMs();
        if (nowMs - lastSweepMs < QUOTE_SWEEP_INTERVAL_MS) return 0;
        const deleted = await sweepExpiredQuotes(service);
        // A full batch means more are waiting: sweep again next round.
        if (deleted < QUOTE_SWEEP_BATCH_MAX) lastSweepMs = nowMs;
        return deleted;
      },
    },
  ];
}
