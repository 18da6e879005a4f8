// accept.blue's /transactions/queue (docs/acceptblue-compatibility.md): take
// an authorization out of the open batch into the queue. In Payrail an
// authorization (`capture: false`) never joins a batch until it is
// captured, and a capture is sent to the processor at once, so an
// authorization is always "queued" already and the call changes nothing;
// what it decides is only whether the transaction is one. A read.
import type { Db } from '../db.ts';
import { findNamed, type Refused } from './operation-common.ts';

export type QueueAnswer = { readonly kind: 'queued' } | Refused;

/** Whether charge `pk` of the merchant is an approved, uncaptured authorization, or why not. */
export async function queueAuthorization(db: Db, input: { pk: number; merchantId: string }): Promise<QueueAnswer> {
  return db.read(async (tx) => {
    const named = await findNamed(tx, input.pk, input.merchantId);
    if (named.kind === 'refused') {
      if (named.refusal.reason === 'not_found') return named;
      return { kind: 'refused', refusal: { reason: 'not_queueable', why: 'not_a_charge' } };
    }
    const row = named.row;
    if (row.kind !== 'charge') return { kind: 'refused', refusal: { reason: 'not_queueable', why: 'not_a_charge' } };
    if (row.status !== 'approved') return { kind: 'refused', refusal: { reason: 'not_queueable', why: 'not_approved' } };
    // A capture under way is a capture: the transaction is on its way into the batch.
    if (row.op === 'capture' || row.stage === 'captured') return { kind: 'refused', refusal: { reason: 'not_queueable', why: 'captured' } };
    if (row.op === 'void') return { kind: 'refused', refusal: { reason: 'not_queueable', why: 'voided' } };
    if (row.stage === 'authorized') return { kind: 'queued' };
    return { kind: 'refused', refusal: { reason: 'not_queueable', why: row.stage === 'settled' ? 'settled' : row.stage === 'voided' ? 'voided' : 'expired' } };
  });
}
