// Readiness of this process for traffic: the store answers a query.
import type { Service } from '../../service.ts';
import { storeAnswers } from '../../store/health.ts';

export interface Readiness {
  readonly environment: string;
  readonly store: string;
}

/** Throws when the store does not answer. */
export async function readiness(service: Service): Promise<Readiness> {
  await storeAnswers(service.db);
  return { environment: service.config.environment, store: service.db.dialect };
}
