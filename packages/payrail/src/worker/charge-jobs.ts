// Worker jobs of card payin: resolving pending charges, and pruning expired
// nonces and old Idempotency-Keys.
import { cardCipherFor } from '../crypto/card-key.ts';
import { resolveDueCharges } from '../flows/charge-recovery.ts';
import { prunePayinData } from '../flows/payin-cleanup.ts';
import type { Service } from '../service.ts';
import type { Job } from './worker.ts';

export function pendingChargesJob(service: Service): Job {
  const deps = {
    db: service.db,
    clock: service.clock,
    log: service.log,
    processor: service.providers.cardProcessor,
    cipher: () => cardCipherFor(service.config),
  };
  return { name: 'charges.resolve-pending', runOnce: () => resolveDueCharges(deps) };
}

export function payinCleanupJob(service: Service): Job {
  return { name: 'payin.prune', runOnce: () => prunePayinData(service) };
}
