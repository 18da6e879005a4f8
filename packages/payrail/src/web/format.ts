// Display formatting for the panel: money from integer cents (never floats),
// UTC timestamps, and the words behind transfer state codes.
import { isWaitingState } from '../domain/transfer-states.ts';
import { DAY_MS } from '../domain/clock.ts';
import { formatCents } from '../domain/money.ts';

/** 123456 -> "1,234.56"; negative amounts keep their sign. */
export function money(cents: number): string {
  const [whole, fraction] = formatCents(cents).split('.') as [string, string];
  const sign = whole.startsWith('-') ? '-' : '';
  const digits = sign === '' ? whole : whole.slice(1);
  return `${sign}${digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${fraction}`;
}

export function usd(cents: number): string {
  return `${money(cents)} USD`;
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

export function chargeTone(status: string): 'ok' | 'bad' | 'wait' | 'busy' {
  if (status === 'approved' || status === 'captured' || status === 'settled') return 'ok';
  if (status === 'pending') return 'wait';
  return 'bad';
}
