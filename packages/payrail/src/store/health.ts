// The store's own liveness: one trivial query proves a connection answers.
import type { Db } from './db.ts';

export async function storeAnswers(db: Db): Promise<void> {
  await db.read((tx) => tx.get('SELECT 1 AS one'));
}
