// Execute transfer, as one store command: what the execute needs of the
// store (the merchant's link rule, a quote for this id) is read, the caller's
// pure plan turns it into the write, and the write is made by the execute
// rule of this store (execute-rule.ts statement by statement, or
// PostgreSQL's batch statement, execute-batch.ts). Every refusal (duplicate
// id, gatewayId, funds) rolls the whole execute back and is the answer.
//
// How each store gets there at least cost:
//   - SQLite: the context is read inside the write, on the writer's warm
//     cache and in its transaction (a read of its own would begin and end a
//     read transaction, which cost more than the read). So the provider's
//     rate is asked first, and used only when no quote is honoured; should
//     the provider fail, a transfer with a valid quote still goes ahead.
//   - PostgreSQL: without gatewayId, first planned on what this process last
//     saw (execute-hints.ts) and written with the other executes of the
//     moment in one statement, which checks what the plan assumed;
//     otherwise, or when an assumption no longer holds, the exact path: the
//     context read with the other executes' of the moment, then the write
//     (the batch statement again, or the statements alone for a payin link
//     and for what the batch leaves to be decided alone).
// The provider's rate is always asked outside any transaction.
import { command, Refusal } from '../command.ts';
import type { Db } from '../db.ts';
import type { GatewayChargeFacts } from '../transfers.ts';
import { type ExecuteContext, readExecuteContext, readExecuteContexts } from '../transfers.ts';
import { type ExecuteAssumptions, recordExecutes } from './execute-batch.ts';
import { executeHints } from './execute-hints.ts';
import { type ExecuteWrite, recordExecute } from './execute-rule.ts';

export type { ExecuteContext } from '../transfers.ts';
export type { ExecuteWrite } from './execute-rule.ts';

export interface ExecuteRequest {
  readonly merchantId: string;
  readonly transferId: string;
  /** The card payin gatewayId names, or null. */
  readonly gatewayChargePk: number | null;
  /** The time a plan is made at, read when the store is about to plan. */
  readonly nowMs: () => number;
  /** The provider's rate for the corridor (a network call: asked outside any transaction, and only when a plan may need it). */
  readonly rate: () => Promise<string>;
  /** Pure: whether `context` holds a quote this execute honours at `nowMs` (then no provider rate is needed). */
  readonly honoursQuote: (context: ExecuteContext, nowMs: number) => boolean;
  /** Pure: the write, made at `nowMs`; `providerRate` is called only when no quote is honoured. */
  readonly plan: (context: ExecuteContext, nowMs: number, providerRate: () => string) => ExecuteWrite;
}

export type ExecuteAnswer =
  | { readonly kind: 'recorded'; readonly substate: number }
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'gateway_refused'; readonly chargePk: number; readonly facts: GatewayChargeFacts | undefined }
  | { readonly kind: 'below_floor' };

const DUPLICATE: ExecuteAnswer = { kind: 'duplicate' };

export async function executeTransfer(db: Db, request: ExecuteRequest): Promise<ExecuteAnswer> {
  return db.batched === undefined ? executeInWrite(db, request) : executeBatched(db, request);
}

/** The context read, the plan and the write, in one operation of the group commit. */
async function executeInWrite(db: Db, request: ExecuteRequest): Promise<ExecuteAnswer> {
  const provided = await request.rate().then(
    (rate) => ({ ok: true as const, rate }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  return command(db, async (tx) => {
    const context = contextOf(request.merchantId, await readExecuteContext(tx, request.merchantId, request.transferId));
    const write = request.plan(context, request.nowMs(), () => {
      if (!provided.ok) throw provided.error;
      return provided.rate;
    });
    const outcome = await recordExecute(tx, write);
    if (outcome.kind !== 'recorded') throw new Refusal(outcome);
    return { kind: 'recorded', substate: write.transfer.substate };
  });
}

/** PostgreSQL's: on hints when they allow, else the exact path (see the head of this file). */
async function executeBatched(db: Db, request: ExecuteRequest): Promise<ExecuteAnswer> {
  const { merchantId, transferId } = request;
  const hints = executeHints(db);
  if (request.gatewayChargePk === null) {
    const optimistic = await executeOnHints(db, request);
    if (optimistic !== null) return optimistic;
  }
  const context = contextOf(merchantId, await db.batched!('transfer.execute-context', { merchantId, transferId }, readExecuteContexts));
  hints.rememberPayoutsMustLink(merchantId, Number(context.payouts_must_link));
  const nowMs = request.nowMs();
  const providerRate = request.honoursQuote(context, nowMs) ? null : await request.rate();
  // Asked for exactly when the plan finds no quote honoured at the same nowMs.
  const write = request.plan(context, nowMs, () => providerRate!);
  if (request.gatewayChargePk === null) {
    const assumed = { payoutsMustLink: Number(context.payouts_must_link), noQuote: false };
    const joint = await writeInBatch(db, write, assumed);
    // 'alone' (a refusal for funds among them): decided by itself below.
    if (joint !== null) return joint;
  }
  return command(db, async (tx) => {
    const outcome = await recordExecute(tx, write);
    if (outcome.kind !== 'recorded') throw new Refusal(outcome);
    return { kind: 'recorded', substate: write.transfer.substate };
  });
}

/**
 * The execute without a read: planned on the merchant's rule as last seen
 * and on there being no quote for the id, written with the other executes
 * of the moment by the statement that checks both. Null when the hints do
 * not allow it (a merchant not seen yet, an id this process quoted, the
 * provider's rate failing: the exact path then decides, quote and all) or
 * when the statement left the execute alone (an assumption that no longer
 * holds, a refusal for funds among them).
 */
async function executeOnHints(db: Db, request: ExecuteRequest): Promise<ExecuteAnswer | null> {
  const hints = executeHints(db);
  const payoutsMustLink = hints.payoutsMustLink(request.merchantId);
  const nowMs = request.nowMs();
  if (payoutsMustLink === undefined || hints.mayHaveQuote(request.merchantId, request.transferId, nowMs)) return null;
  let rate: string;
  try {
    rate = await request.rate();
  } catch {
    return null;
  }
  const assumedContext: ExecuteContext = {
    payouts_must_link: payoutsMustLink,
    quote_service: null,
    quote_amount_cents: null,
    quote_fx_rate: null,
    quote_expires_at_ms: null,
  };
  const write = request.plan(assumedContext, nowMs, () => rate);
  return writeInBatch(db, write, { payoutsMustLink, noQuote: true });
}

/** With the other executes of the moment, in one statement that is its own transaction; null when left alone. */
async function writeInBatch(db: Db, write: ExecuteWrite, assumed: ExecuteAssumptions): Promise<ExecuteAnswer | null> {
  const { transfer, posting, note, events } = write;
  const joint = await db.batched!('transfer.execute', { transfer, posting, note, events, assumed }, recordExecutes);
  if (joint.kind === 'recorded') return { kind: 'recorded', substate: transfer.substate };
  return joint.kind === 'duplicate' ? DUPLICATE : null;
}

function contextOf(merchantId: string, context: ExecuteContext | undefined): ExecuteContext {
  if (context === undefined) throw new Error(`merchant ${merchantId} of an authenticated key does not exist`);
  return context;
}
