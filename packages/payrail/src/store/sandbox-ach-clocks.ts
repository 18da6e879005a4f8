// The sandbox's ACH clock of each merchant (migration 029): how far
// `POST /sandbox/ach/advance` moved it ahead of the service clock. The
// sandbox ACH network reads it only through the AchClocks port the runtime
// builds from these functions, so every process on one store agrees.
import type { Db, Tx } from './db.ts';

export async function readAchClockOffsetMs(tx: Tx, merchantId: string): Promise<number> {
  const row = await tx.get<{ offset_ms: number | string }>('SELECT offset_ms FROM sandbox_ach_clocks WHERE merchant_id = ?', [merchantId]);
  return row === undefined ? 0 : Number(row.offset_ms);
}

/** Moves the merchant's ACH clock ahead by `byMs` (never back); returns the new offset. */
export async function advanceAchClock(db: Db, input: { merchantId: string; byMs: number; nowMs: number }): Promise<number> {
  if (!Number.isSafeInteger(input.byMs) || input.byMs < 0) throw new Error(`an ACH clock moves forward only, by whole milliseconds; got ${input.byMs}`);
  return db.write(async (tx) => {
    const row = await tx.get<{ offset_ms: number | string }>(
      `INSERT INTO sandbox_ach_clocks (merchant_id, offset_ms, updated_at_ms) VALUES (?, ?, ?)
       ON CONFLICT (merchant_id) DO UPDATE SET offset_ms = sandbox_ach_clocks.offset_ms + excluded.offset_ms, updated_at_ms = excluded.updated_at_ms
       RETURNING offset_ms`,
      [input.merchantId, input.byMs, input.nowMs],
    );
    return Number(row?.offset_ms ?? 0);
  });
}

/** The sandbox ACH network's view of these rows: each call its own read. */
export function sandboxAchClocks(db: Db): { offsetMs(merchantId: string): Promise<number> } {
  return { offsetMs: (merchantId) => db.read((tx) => readAchClockOffsetMs(tx, merchantId)) };
}
