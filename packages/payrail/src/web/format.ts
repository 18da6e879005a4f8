// Display formatting for the panel: money from integer cents (never floats),
// UTC timestamps, and the words behind transfer state codes.
import { isWaitingState } from '../domain/transfer-states.ts';
import { DAY_MS } from '../domain/clock.ts';
import { formatMinor } from '../domain/money.ts';

/** 123456 -> "1,234.56" (2 decimals unless `minorUnits` says otherwise); negative amounts keep their sign. */
function grouped(minor: number, minorUnits: number): string {
  const [whole, fraction] = formatMinor(Math.abs(minor), minorUnits).split('.') as [string, string | undefined];
  const sign = minor < 0 ? '-' : '';
  return `${sign}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction === undefined ? '' : `.${fraction}`}`;
}

/**
 * The panel's one money format: minor units with thousands separators and
 * the currency code, (123456, 'USD') -> "1,234.56 USD", (31666250, 'KES') ->
 * "316,662.50 KES", (5000, 'UGX', 0) -> "5,000 UGX". `minorUnits` is the
 * currency's ISO 4217 exponent (2 for USD, the currency of balances and card
 * payins). Every amount a page shows goes through here.
 */
export function amount(minor: number, currency: string, minorUnits = 2): string {
  return `${grouped(minor, minorUnits)} ${currency}`;
}

/** A chart axis tick: the number alone, the axis says the currency. Never an amount of a record. */
export function axisNumber(cents: number): string {
  return grouped(cents, 2);
}

/** "2026-01-31 14:05:09 UTC" */
export function timestamp(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** "2026-01-31" for a UTC day number. */
export function dayLabel(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

const STATE_NAMES: Record<number, string> = { 0: 'New', 20: 'Submitted', 30: 'Submitted', 40: 'Processing', 60: 'Success', 80: 'Error', [-2]: 'Not found' };

export function stateName(state: number, substate: number, waitingFor: string | null = null): string {
  if (isWaitingState(state, substate)) return waitingFor === null ? 'Waiting' : `Waiting for ${waitingFor}`;
  return STATE_NAMES[state] ?? `State ${state}`;
}

/** A CSS modifier for a state badge: ok, bad, wait or busy. */
export function stateTone(state: number, substate: number): 'ok' | 'bad' | 'wait' | 'busy' {
  if (state === 60) return 'ok';
  if (state === 80) return 'bad';
  if (isWaitingState(state, substate)) return 'wait';
  return 'busy';
}

/** A CSS modifier for a charge's status badge, cards and checks alike: an originated check is on its way (busy), a returned one failed (bad). */
export function chargeTone(status: string): 'ok' | 'bad' | 'wait' | 'busy' {
  if (status === 'approved' || status === 'captured' || status === 'settled') return 'ok';
  if (status === 'pending') return 'wait';
  if (status === 'originated') return 'busy';
  return 'bad';
}
