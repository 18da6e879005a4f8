// Execute's write, statement by statement: a new transfer in state 0, its
// link to the card payin named by gatewayId (when it names one), the posting
// that moves its amount from the merchant's available balance to in flight,
// its first history row and its outbox events, all or nothing.
//
// The rule as SQLite runs every execute (no round trips and one writer:
// statements cost it nothing a single statement would save), and as
// PostgreSQL runs the executes its batch statement does not take
// (execute-batch.ts): those that link a payin, and the rare ones the batch
// leaves to be decided alone. A refusal is answered, not thrown: the caller
// throws it (Refusal) so that what was written on the way rolls back.
import { assertPosting, type PostingInput } from '../../domain/ledger.ts';
import { STATE } from '../../domain/transfer-states.ts';
import type { Tx } from '../db.ts';
import { insertEvents as insertOutboxEvents } from '../events.ts';
import { post } from '../ledger.ts';
import { type GatewayChargeFacts, gatewayChargeFacts, insertEvent, insertTransfer, linkCharge, type NewTransfer } from '../transfers.ts';

/** Bounds the batch statement's input; execute makes one or two events. */
export const EXECUTE_EVENTS_MAX = 4;

export interface ExecuteWrite {
  /** The new transfer; a gateway_charge_pk links that card payin in the same write. */
  readonly transfer: NewTransfer;
  /** The posting that moves the amount; its reference is the new transfer. */
  readonly posting: Omit<PostingInput, 'refId'>;
  /** The note of the transfer's first history row (transfer_events). */
  readonly note: string;
  /** The outbox events of the creation (events table), in order, `data` already rendered. */
  readonly events: ReadonlyArray<{ readonly type: string; readonly dataJson: string }>;
}

/**
 * `duplicate`: the merchant already has a transfer with this id.
 * `gateway_refused`: the payin named by gatewayId cannot fund the amount (the
 * conditional link changed nothing); `facts` is what the payin looked like
 * right after, to word the refusal. `below_floor`: the available balance
 * plus overdraft does not cover the amount.
 */
export type ExecuteOutcome =
  | { readonly kind: 'recorded'; readonly pk: number }
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'gateway_refused'; readonly chargePk: number; readonly facts: GatewayChargeFacts | undefined }
  | { readonly kind: 'below_floor' };

export function assertExecuteWrite(write: ExecuteWrite): void {
  assertPosting({ ...write.posting, refId: '' });
  if (write.events.length > EXECUTE_EVENTS_MAX) throw new Error(`at most ${EXECUTE_EVENTS_MAX} events per execute, got ${write.events.length}`);
}

/** The write in the caller's transaction; on any outcome but `recorded` the caller must roll it back. */
export async function recordExecute(tx: Tx, write: ExecuteWrite): Promise<ExecuteOutcome> {
  assertExecuteWrite(write);
  const t = write.transfer;
  const pk = await insertTransfer(tx, t);
  if (pk === null) return { kind: 'duplicate' };
  const chargePk = t.gateway_charge_pk;
  if (chargePk !== null) {
    const link = { transferPk: pk, chargePk, merchantId: t.merchant_id, amountCents: t.amount_cents, how: 'gateway', nowMs: t.created_at_ms } as const;
    if (!(await linkCharge(tx, link))) return { kind: 'gateway_refused', chargePk, facts: await gatewayChargeFacts(tx, chargePk) };
  }
  if ((await post(tx, { ...write.posting, refId: String(pk) })) === 'below_floor') return { kind: 'below_floor' };
  await insertEvent(tx, pk, STATE.new, t.substate, write.note, t.created_at_ms);
  await insertOutboxEvents(
    tx,
    write.events.map((event) => ({ merchantId: t.merchant_id, type: event.type, dataJson: event.dataJson, nowMs: t.created_at_ms })),
  );
  return { kind: 'recorded', pk };
}
