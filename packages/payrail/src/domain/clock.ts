// Time is injected everywhere a rule depends on it (nonce lifetime, quote
// validity, invitation expiry), so tests move it instead of waiting.
export interface Clock {
  nowMs(): number;
}

export const systemClock: Clock = { nowMs: () => Date.now() };

/** One UTC day. The panel's date filters and daily volume count whole days of this length. */
export const DAY_MS = 24 * 60 * 60 * 1000;

/** A clock tests set and advance by hand. */
export class ManualClock implements Clock {
  constructor(private currentMs: number = Date.UTC(2026, 0, 1)) {}
  nowMs(): number {
    return this.currentMs;
  }
  advance(ms: number): void {
    this.currentMs += ms;
  }
  set(ms: number): void {
    this.currentMs = ms;
  }
}
