// The worker's KYC backstop: sessions at a provider that verifies in
// sessions whose decision webhook never came are asked about
// (flows/transfers/kyc-decisions.ts), one bounded batch at most every
// KYC_BACKSTOP_INTERVAL_MS, so the provider is asked at a bounded rate.
import { checkOpenSessions, KYC_BACKSTOP_INTERVAL_MS } from '../flows/transfers/kyc-decisions.ts';
import type { Service } from '../service.ts';
import type { Job } from './worker.ts';

export function kycBackstopJob(service: Service): Job {
  let lastRunMs = Number.NEGATIVE_INFINITY;
  return {
    name: 'kyc-decisions',
    runOnce: async () => {
      if (service.providers.kyc.kind !== 'sessions') return 0;
      const nowMs = service.clock.nowMs();
      if (nowMs - lastRunMs < KYC_BACKSTOP_INTERVAL_MS) return 0;
      lastRunMs = nowMs;
      // Returns 0 whatever it did: the next batch waits for the interval, not for the next round.
      await checkOpenSessions({ db: service.db, clock: service.clock, log: service.log, kyc: service.providers.kyc });
      return 0;
    },
  };
}
