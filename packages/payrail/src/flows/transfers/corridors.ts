// The corridor table of this deployment, read once from the configured file.
import { loadCorridors, type CorridorTable } from '../../domain/corridors.ts';
import type { Service } from '../../service.ts';

export function corridorsOf(service: Pick<Service, 'config'>): CorridorTable {
  return loadCorridors(service.config.corridorsFile);
}

/** Minor units of a stored transfer's currency: its corridor's, or the ISO default of 2 if the corridor is gone. */
export function minorUnitsOf(service: Pick<Service, 'config'>, serviceId: string, currency: string): number {
  const table = corridorsOf(service);
  const corridor = table.byService(serviceId) ?? table.corridors.find((c) => c.currency === currency);
  return corridor?.currencyMinorUnits ?? 2;
}
