// The worker's claims of captures, voids and refunds whose request never
// recorded the processor's answer: each claim pushes the next look of what
// it takes to a lease in the same statement, so two workers never ask about
// one operation at once.
import { claimDueOperations } from '../charge-operations.ts';
import type { ChargeRow } from '../charges.ts';
import type { Db } from '../db.ts';
import { claimDueRefunds } from '../refunds.ts';

export interface Claim {
  readonly nowMs: number;
  readonly leaseUntilMs: number;
  readonly limit: number;
}

/** Claims at most `limit` due captures and voids (charges with an operation awaiting an answer). */
export async function claimDueCaptureVoids(db: Db, claim: Claim): Promise<ChargeRow[]> {
  return db.write((tx) => claimDueOperations(tx, claim.nowMs, claim.leaseUntilMs, claim.limit));
}

/** Claims at most `limit` due refunds (pending refund rows). */
export async function claimDuePendingRefunds(db: Db, claim: Claim): Promise<ChargeRow[]> {
  return db.write((tx) => claimDueRefunds(tx, claim.nowMs, claim.leaseUntilMs, claim.limit));
}
