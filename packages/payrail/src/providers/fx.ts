// The FX connector: the rate from USD to a receiver currency. Rates travel
// as exact decimal text ("129.25"), never as binary floating point.
import type { Corridor } from '../domain/corridors.ts';
import { isRateText } from '../domain/money.ts';

export interface FxProvider {
  /** Receiver-currency units per 1 USD for the corridor, as a positive decimal string. */
  rate(corridor: Corridor): Promise<string>;
}

/** Refuses a rate a connector returned that Payrail cannot use exactly. */
export function assertRateText(rate: string, currency: string): string {
  if (!isRateText(rate)) throw new Error(`FX provider returned an unusable ${currency} rate: ${JSON.stringify(rate)}`);
  return rate;
}
