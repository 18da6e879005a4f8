// Tokenization's write: one INSERT of the sealed nonce, in its own transaction.
import type { Db } from '../db.ts';
import { insertNonce } from '../nonces.ts';

export function storeNonce(db: Db, row: Parameters<typeof insertNonce>[1]): Promise<void> {
  return db.write((tx) => insertNonce(tx, row));
}
