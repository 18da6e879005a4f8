// Quotes (POST /api/checkTransfer) that an execute of the same id honours.
import type { Db } from '../db.ts';
import { deleteExpiredQuotes, saveQuote } from '../transfers.ts';
import { executeHints } from './execute-hints.ts';

export interface NewQuote {
  readonly merchant_id: string;
  readonly transfer_id: string;
  readonly service: string;
  readonly amount_cents: number;
  readonly fx_rate: string;
  readonly expires_at_ms: number;
}

/** Saves the quote (replacing the id's earlier one), made at `nowMs`. */
export async function saveTransferQuote(db: Db, quote: NewQuote, nowMs: number): Promise<void> {
  await db.write((tx) => saveQuote(tx, quote));
  // So that this id's execute reads the quote rather than assume there is none (execute-hints.ts).
  executeHints(db).noteQuote(quote.merchant_id, quote.transfer_id, nowMs);
}

/** Deletes at most `limit` quotes expired by `nowMs`; returns how many. */
export function deleteExpiredTransferQuotes(db: Db, nowMs: number, limit: number): Promise<number> {
  return db.write((tx) => deleteExpiredQuotes(tx, nowMs, limit));
}
