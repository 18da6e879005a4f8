// The worker's jobs, in the order they run each round.
import type { Service } from '../service.ts';
import { achJobs } from './ach-jobs.ts';
import { cardLifecycleJobs, payinCleanupJob, pendingChargesJob, recurringSchedulesJob } from './charge-jobs.ts';
import { kycBackstopJob } from './kyc-jobs.ts';
import { mailSendJob } from './mail-jobs.ts';
import { processorReconciliationJob, tableStatisticsJob } from './maintenance-jobs.ts';
import { abuseCountersPruneJob, cardDataScrubJob, cardKeyResealJob, cardKeyRingRefreshJob } from './security-jobs.ts';
import { createTransferJobs } from './transfer-jobs.ts';
import { pruneOldEvents } from '../flows/webhooks/retention.ts';
import type { Job } from './worker.ts';

export function createJobs(service: Service): Job[] {
  return [
    cardKeyRingRefreshJob(service),
    pendingChargesJob(service),
    recurringSchedulesJob(service),
    ...cardLifecycleJobs(service),
    payinCleanupJob(service),
    abuseCountersPruneJob(service),
    ...createTransferJobs(service),
    ...achJobs(service),
    kycBackstopJob(service),
    cardDataScrubJob(service),
    cardKeyResealJob(service),
    mailSendJob(service),
    { name: 'events.prune', runOnce: () => pruneOldEvents(service) },
    tableStatisticsJob(service),
    processorReconciliationJob(service),
  ];
}
