// How a store command answers a refusal it decides inside its transaction.
//
// A command reads and writes in one transaction and may find, part way, that
// the request must be refused (the row is in the wrong state, a balance would
// go below its floor). What it wrote so far must then be rolled back, and the
// caller still wants a typed answer, not an exception: `throw new Refusal(r)`
// inside the work rolls back this operation alone (the group commit's
// contract, db.ts), and `command` hands `r` back as the command's result.
import type { Db, Tx } from './db.ts';

/** Thrown inside a command's work: roll this operation back and answer `result`. */
export class Refusal<R> extends Error {
  constructor(readonly result: R) {
    super('refused by its command');
  }
}

/** Runs `work` in a write transaction; a Refusal thrown by it rolls it back and becomes the answer. */
export async function command<R>(db: Db, work: (tx: Tx) => Promise<R>): Promise<R> {
  try {
    return await db.write(work);
  } catch (error) {
    if (error instanceof Refusal) return error.result as R;
    throw error;
  }
}
