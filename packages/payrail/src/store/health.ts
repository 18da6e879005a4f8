// The store's own liveness: one trivial query proves a connection answers.
import type { Db, Dialect } from './db.ts';

export async function storeAnswers(db: Db): Promise<void> {
  await db.read((tx) => tx.get('SELECT 1 AS one'));
}

/** Which engine the store runs on, for logs and the readiness answer (never to branch on: the store owns the dialect). */
export function storeKind(db: Db): Dialect {
  return db.dialect;
}
