// The FX connector: the rate from USD to a receiver currency. Rates travel
// as exact decimal text ("129.25"), never as binary floating point.
import type { Corridor } from '../domain/corridors.ts';
import { isRateText } from '../domain/money.ts';
import type { LookupDeadline } from './deadline.ts';

/** A thrown error (or no answer within the look-up deadline) means the provider is unreachable: the request is answered service_unavailable. */
export interface FxProvider extends LookupDeadline {
  /** Receiver-currency units per 1 USD for the corridor, as a positive decimal string; `signal` fires when Payrail stops waiting. */
  rate(corridor: Corridor, signal?: AbortSignal): Promise<string>;
}

/** Refuses a rate a connector returned that Payrail cannot use exactly. */
export function assertRateText(rate: string, currency: string): string {
  if (!isRateText(rate)) throw new Error(`FX provider returned an unusable ${currency} rate: ${JSON.stringify(rate)}`);
  return rate;
}

/**
 * Thrown by an FX connector that is reachable but has no rate it may quote
 * (the currency is missing from its table, or the table is older than the
 * connector allows): the request is refused service_unavailable with this
 * message, which must name no host or secret.
 */
export class RateUnavailable extends Error {
  override readonly name = 'RateUnavailable';
}
