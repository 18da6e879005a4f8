// One-time recovery codes of a panel user's second factor (table
// panel_recovery_codes). Only SHA-256 hashes are stored; a code is used by
// one conditional statement, so it works once even under concurrent tries.
import type { Tx } from './db.ts';

export async function replaceRecoveryCodes(tx: Tx, userId: string, codeHashes: readonly string[], nowMs: number): Promise<void> {
  await tx.run('DELETE FROM panel_recovery_codes WHERE user_id = ?', [userId]);
  for (const hash of codeHashes) {
    await tx.run('INSERT INTO panel_recovery_codes (user_id, code_hash, created_at_ms) VALUES (?, ?, ?)', [userId, hash, nowMs]);
  }
}

/** Marks an unused code of the user used; false when there is no such unused code. */
export async function useRecoveryCode(tx: Tx, userId: string, codeHash: string, nowMs: number): Promise<boolean> {
  const done = await tx.run('UPDATE panel_recovery_codes SET used_at_ms = ? WHERE user_id = ? AND code_hash = ? AND used_at_ms IS NULL', [
    nowMs,
    userId,
    codeHash,
  ]);
  return done.changes === 1;
}

export async function countUnusedRecoveryCodes(tx: Tx, userId: string): Promise<number> {
  const row = await tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM panel_recovery_codes WHERE user_id = ? AND used_at_ms IS NULL', [userId]);
  return Number(row?.n ?? 0);
}

export async function deleteRecoveryCodes(tx: Tx, userId: string): Promise<void> {
  await tx.run('DELETE FROM panel_recovery_codes WHERE user_id = ?', [userId]);
}
