// What this process last saw of the store that execute's plan depends on,
// so that on PostgreSQL an execute can be planned without a read first and
// cost one round trip instead of two (the read and the write were measured
// as the two waits of an execute there: the API's executes are bound by
// latency, not by either side's CPU).
//
// Nothing here is trusted: each hint becomes an assumption the write checks
// in the same statement (execute-batch.ts), and a wrong one
// only sends that execute down the exact path (read, then write). So no
// hint needs invalidating; a stale one costs a round trip, once.
//   - a merchant's payouts-must-link rule, as the last exact read showed it;
//   - the ids this process quoted (POST /api/check) and whose quotes may
//     still be honoured: their executes take the exact path at once, since a
//     quote changes the rate. A quote made by another process is found by
//     the statement's check instead.
import { QUOTE_LIFETIME_MS } from '../../domain/transfer-states.ts';
import type { Db } from '../db.ts';

/** Merchants whose rule is remembered; past it, the longest unused is forgotten. */
const MERCHANTS_MAX = 10_000;
/** Quoted ids remembered; past it, the oldest is forgotten (its execute then finds the quote by the statement's check). */
const QUOTED_IDS_MAX = 100_000;

export class ExecuteHints {
  private readonly mustLink = new Map<string, number>();
  /** `merchant \n id` -> when its quote expires (ms); in the order they were quoted. */
  private readonly quoted = new Map<string, number>();

  payoutsMustLink(merchantId: string): number | undefined {
    const value = this.mustLink.get(merchantId);
    if (value !== undefined) {
      // Most recently used last, so the first is the one to forget.
      this.mustLink.delete(merchantId);
      this.mustLink.set(merchantId, value);
    }
    return value;
  }

  rememberPayoutsMustLink(merchantId: string, value: number): void {
    this.mustLink.delete(merchantId);
    if (this.mustLink.size >= MERCHANTS_MAX) this.mustLink.delete(this.mustLink.keys().next().value!);
    this.mustLink.set(merchantId, value);
  }

  noteQuote(merchantId: string, transferId: string, nowMs: number): void {
    const key = `${merchantId}\n${transferId}`;
    this.quoted.delete(key);
    if (this.quoted.size >= QUOTED_IDS_MAX) this.quoted.delete(this.quoted.keys().next().value!);
    this.quoted.set(key, nowMs + QUOTE_LIFETIME_MS);
  }

  /** True while a quote this process made for the id may still be honoured. */
  mayHaveQuote(merchantId: string, transferId: string, nowMs: number): boolean {
    const key = `${merchantId}\n${transferId}`;
    const expiresAtMs = this.quoted.get(key);
    if (expiresAtMs === undefined) return false;
    if (expiresAtMs >= nowMs) return true;
    this.quoted.delete(key);
    return false;
  }

  /** How many entries are kept (for tests of the bounds). */
  get size(): { merchants: number; quotedIds: number } {
    return { merchants: this.mustLink.size, quotedIds: this.quoted.size };
  }
}

const HINTS = new WeakMap<Db, ExecuteHints>();

/** The hints of one store handle (one per process in production; tests open several). */
export function executeHints(db: Db): ExecuteHints {
  let hints = HINTS.get(db);
  if (hints === undefined) {
    hints = new ExecuteHints();
    HINTS.set(db, hints);
  }
  return hints;
}
