// Readiness of this process for traffic: the store answers a query.
import type { Service } from '../../service.ts';
import { storeAnswers, storeKind } from '../../store/health.ts';

export interface Readiness {
  readonly environment: string;
  readonly store: string;
}

/** Throws when the store does not answer. */
export async function readiness(service: Service): Promise<Readiness> {
  await storeAnswers(service.db);
  return { environment: service.config.environment, store: storeKind(service.db) };
}

/** The store's engine, for the start-up lines of the server and the worker. */
export function storeEngine(service: Pick<Service, 'db'>): string {
  return storeKind(service.db);
}
