// Time is injected everywhere a rule depends on it (nonce lifetime, quote
// validity, invitation expiry), so tests move it instead of waiting.
export interface Clock {
  nowMs(): number;
}

export const systemClock: Clock = { nowMs: () => Date.now() };

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
