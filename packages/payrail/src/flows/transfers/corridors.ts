// Corridor look-ups the flows share, on the table loaded at start.
import type { Service } from '../../service.ts';

/** Minor units of a stored transfer's currency: its corridor's, or the ISO default of 2 if the corridor is gone. */
export function minorUnitsOf(service: Pick<Service, 'corridors'>, serviceId: string, currency: string): number {
  const table = service.corridors;
  const corridor = table.byService(serviceId) ?? table.corridors.find((c) => c.currency === currency);
  return corridor?.currencyMinorUnits ?? 2;
}
