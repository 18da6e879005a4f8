// Worker jobs of card payin: resolving pending charges, and pruning expired
// nonces and old Idempotency-Keys; and of the card lifecycle (docs/api-decisions.md
// section 10): captures, voids, refunds and verifies awaiting an answer,
// authorizations past their lifetime, and the daily batch close.
import { recoveryDepsOf, resolveDueCharges } from '../flows/payin/charge-recovery.ts';
import { expireDueAuthorizations } from '../flows/payin/authorization-expiry.ts';
import { batchCloseDepsOf, closeDueBatches } from '../flows/payin/batches.ts';
import { creditDepsOf } from '../flows/payin/operation-common.ts';
import { resolveDueOperations } from '../flows/payin/operation-recovery.ts';
import { prunePayinData } from '../flows/payin/cleanup.ts';
import { resolveDueVerifications, verifyRecoveryDepsOf } from '../flows/payin/verify.ts';
import { runDueSchedules, scheduleRunDepsOf } from '../flows/vault/schedule-runs.ts';
import type { Service } from '../service.ts';
import type { Job } from './worker.ts';

export function pendingChargesJob(service: Service): Job {
  const deps = recoveryDepsOf(service);
  return { name: 'charges.resolve-pending', runOnce: () => resolveDueCharges(deps) };
}

export function payinCleanupJob(service: Service): Job {
  return { name: 'payin.prune', runOnce: () => prunePayinData(service) };
}

export function cardLifecycleJobs(service: Service): Job[] {
  const operationDeps = creditDepsOf(service);
  const verifyDeps = verifyRecoveryDepsOf(service);
  const batchDeps = batchCloseDepsOf(service);
  return [
    { name: 'charges.resolve-operations', runOnce: () => resolveDueOperations(operationDeps) },
    { name: 'verifications.resolve-pending', runOnce: () => resolveDueVerifications(verifyDeps) },
    { name: 'authorizations.expire', runOnce: () => expireDueAuthorizations(service) },
    { name: 'batches.close-daily', runOnce: () => closeDueBatches(batchDeps) },
  ];
}

/** Recurring schedules (docs/api-decisions.md section 15): due runs charged once per date, finished runs applied. */
export function recurringSchedulesJob(service: Service): Job {
  const deps = scheduleRunDepsOf(service);
  return { name: 'schedules.run-due', runOnce: () => runDueSchedules(deps) };
}
