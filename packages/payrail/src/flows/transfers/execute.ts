// Execute transfer (docs/interface-spec.md section 4 op 3). Validation and the provider look-ups run
// first, outside any transaction; then one atomic write creates the transfer
// in state 0, links its payin when gatewayId names one, and moves the amount
// from the merchant's available balance to in flight. The write is the hot
// path of the service: without gatewayId it is one store call
// (store/transfer-execute.ts; on PostgreSQL one statement for all the
// executes of the moment, store/transfer-execute-batch.ts), and every
// refusal inside it (duplicate id, gatewayId, funds) rolls the whole
// operation back. What it needs of the store besides (the merchant's link
// rule, a quote for this id) is one read: on SQLite inside the write; on
// PostgreSQL made beforehand with the other executes' of the moment, or,
// when this process's hints allow (execute-hints.ts), not made at all: the
// write then checks what the plan assumed.
import { merchantAccount } from '../../domain/ledger.ts';
import { convertCents, formatCents } from '../../domain/money.ts';
import { INVITATION_LIFETIME_MS, STATE, SUBSTATE, type WaitingFor } from '../../domain/transfer-states.ts';
import type { EventType } from '../../domain/webhooks.ts';
import { fail } from '../../errors.ts';
import { assertRateText } from '../../providers/fx.ts';
import type { Service } from '../../service.ts';
import { post } from '../../store/ledger.ts';
import type { Txn } from '../../store/db.ts';
import { type ExecuteWrite, recordExecute } from '../../store/transfer-execute.ts';
import { recordExecutes } from '../../store/transfer-execute-batch.ts';
import {
  type ExecuteContext,
  gatewayChargeFacts,
  insertEvent,
  insertTransfer,
  linkCharge,
  readExecuteContext,
  readExecuteContexts,
  type TransferStatusRow,
} from '../../store/transfers.ts';
import { emitTransferEvent, transferEventData } from '../events/emit.ts';
import { type ExecuteHints, executeHints } from './execute-hints.ts';
import { gatewayRaceRefusal, gatewayRefusal } from './gateway.ts';
import { checkReceiver, type ReceiverStatus } from './receiver.ts';
import { validateTransfer, type TransferRequestBody } from './validate.ts';

export interface ExecuteResult {
  readonly id: string;
  readonly state: number;
  readonly substate: number;
}

export async function executeTransfer(service: Service, merchantId: string, body: TransferRequestBody): Promise<ExecuteResult> {
  const transfer = validateTransfer(body, service.corridors);
  const receiverStatus = await checkReceiver(service.providers, transfer.receiverPhone, transfer.amountCents);
  const duplicate: () => never = () => fail('duplicate_transfer', `id ${transfer.id} was already used for a transfer`);

  if (service.db.batched === undefined) {
    // SQLite: the context is read inside the write, on the writer's warm
    // cache and in its transaction (a read of its own would begin and end a
    // read transaction, which cost more than the read). So the provider's
    // rate is asked first, and used only when no quote is honoured; should
    // the provider fail, a transfer with a valid quote still goes ahead.
    const provided = await service.providers.fx.rate(transfer.corridor).then(
      (rate) => ({ ok: true as const, rate }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    const plan = await service.db.write(async (tx) => {
      const context = contextOf(merchantId, await readExecuteContext(tx, merchantId, transfer.id));
      const decided = planExecute(service, merchantId, transfer, receiverStatus, context, service.clock.nowMs(), () => {
        if (!provided.ok) throw provided.error;
        return provided.rate;
      });
      await writeExecute(tx, service, decided, duplicate);
      return decided;
    });
    return { id: transfer.id, state: STATE.new, substate: plan.transfer.substate };
  }

  // PostgreSQL: without gatewayId, first planned on what this process last
  // saw (execute-hints.ts) and written in one round trip, the statement
  // checking what the plan assumed; otherwise, or when an assumption no
  // longer holds, the exact path: the context read, then the write.
  const hints = executeHints(service);
  if (transfer.gatewayChargePk === null) {
    const optimistic = await writeOnHints(service, hints, merchantId, transfer, receiverStatus);
    if (optimistic === 'duplicate') duplicate();
    if (optimistic !== null) return { id: transfer.id, state: STATE.new, substate: optimistic.substate };
  }
  // The context read with the other executes' of the moment, in one statement; then the write.
  const context = contextOf(merchantId, await service.db.batched('transfer.execute-context', { merchantId, transferId: transfer.id }, readExecuteContexts));
  hints.rememberPayoutsMustLink(merchantId, Number(context.payouts_must_link));
  const nowMs = service.clock.nowMs();
  const providerRate = quotedRate(transfer, context, nowMs) === null ? await service.providers.fx.rate(transfer.corridor) : null;
  // Asked for exactly when planExecute finds no quote honoured at the same nowMs.
  const plan = planExecute(service, merchantId, transfer, receiverStatus, context, nowMs, () => providerRate!);
  if (transfer.gatewayChargePk === null) {
    // With the other executes of the moment, in one statement that is its own transaction.
    const { transfer: newTransfer, posting, note, events } = plan;
    const assumed = { payoutsMustLink: Number(context.payouts_must_link), noQuote: false };
    const joint = await service.db.batched('transfer.execute', { transfer: newTransfer, posting, note, events, assumed }, recordExecutes);
    if (joint.kind === 'duplicate') duplicate();
    if (joint.kind === 'recorded') return { id: transfer.id, state: STATE.new, substate: newTransfer.substate };
    // 'alone' (a refusal for funds among them): decided by itself below.
  }
  await service.db.write((tx) => writeExecute(tx, service, plan, duplicate));
  return { id: transfer.id, state: STATE.new, substate: plan.transfer.substate };
}

/**
 * PostgreSQL's execute without a read: planned on the merchant's rule as
 * last seen and on there being no quote for the id, written with the other
 * executes of the moment by the statement that checks both. Null when the
 * hints do not allow it (a merchant not seen yet, an id this process
 * quoted, the provider's rate failing: the exact path then decides, quote
 * and all) or when the statement left the execute alone (an assumption that
 * no longer holds, a refusal for funds among them).
 */
async function writeOnHints(
  service: Service,
  hints: ExecuteHints,
  merchantId: string,
  transfer: ValidTransfer,
  receiverStatus: ReceiverStatus,
): Promise<{ substate: number } | 'duplicate' | null> {
  const payoutsMustLink = hints.payoutsMustLink(merchantId);
  const nowMs = service.clock.nowMs();
  if (payoutsMustLink === undefined || hints.mayHaveQuote(merchantId, transfer.id, nowMs)) return null;
  let rate: string;
  try {
    rate = await service.providers.fx.rate(transfer.corridor);
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
  const { transfer: newTransfer, posting, note, events } = planExecute(service, merchantId, transfer, receiverStatus, assumedContext, nowMs, () => rate);
  const assumed = { payoutsMustLink, noQuote: true };
  const joint = await service.db.batched!('transfer.execute', { transfer: newTransfer, posting, note, events, assumed }, recordExecutes);
  if (joint.kind === 'recorded') return { substate: newTransfer.substate };
  return joint.kind === 'duplicate' ? 'duplicate' : null;
}

type ValidTransfer = ReturnType<typeof validateTransfer>;

/** Everything execute writes, decided from the request, the receiver's status and the context. */
interface ExecutePlan extends ExecuteWrite {
  readonly gatewayChargePk: number | null;
  readonly eventTypes: readonly EventType[];
  readonly status: TransferStatusRow;
}

function contextOf(merchantId: string, context: ExecuteContext | undefined): ExecuteContext {
  if (context === undefined) throw new Error(`merchant ${merchantId} of an authenticated key does not exist`);
  return context;
}

/** The rate of a quote (POST /api/check) this execute honours, or null: same service and amount, not expired. */
function quotedRate(transfer: ValidTransfer, context: ExecuteContext, nowMs: number): string | null {
  const honoured =
    context.quote_fx_rate !== null &&
    context.quote_service === transfer.corridor.service &&
    Number(context.quote_amount_cents) === transfer.amountCents &&
    Number(context.quote_expires_at_ms) >= nowMs;
  return honoured ? context.quote_fx_rate : null;
}

/** Pure: the rows execute writes, made at `nowMs`. `providerRate` is called only when no quote is honoured. */
function planExecute(
  service: Service,
  merchantId: string,
  transfer: ValidTransfer,
  receiverStatus: ReceiverStatus,
  context: ExecuteContext,
  nowMs: number,
  providerRate: () => string,
): ExecutePlan {
  const corridor = transfer.corridor;
  const fxRate = quotedRate(transfer, context, nowMs) ?? assertRateText(providerRate(), corridor.currency);
  const receivedMinor = convertCents(transfer.amountCents, fxRate, corridor.currencyMinorUnits);

  // Money must be tied to a payin before it leaves; a new receiver must accept the invitation first.
  let waitingFor: WaitingFor | null = null;
  if (context.payouts_must_link === 1 && transfer.gatewayChargePk === null) waitingFor = 'reconciliation';
  else if (receiverStatus === 'unregistered') waitingFor = 'invitation';
  const invitationExpiresAtMs = waitingFor === 'invitation' ? nowMs + INVITATION_LIFETIME_MS : null;
  // Reconciliation waits are found by their own job; an invitation wait is due when it expires.
  const nextRunAtMs = waitingFor === null ? nowMs : invitationExpiresAtMs;
  const substate = waitingFor === null ? SUBSTATE.ready : SUBSTATE.waiting;

  const newTransfer = {
    merchant_id: merchantId,
    id: transfer.id,
    sender_phone: transfer.senderPhone,
    receiver_phone: transfer.receiverPhone,
    amount_cents: transfer.amountCents,
    service: corridor.service,
    receiver_country: corridor.country,
    receiver_currency: corridor.currency,
    fx_rate: fxRate,
    received_minor: receivedMinor,
    attributes_json: JSON.stringify(transfer.attributes),
    substate,
    waiting_for: waitingFor,
    next_run_at_ms: nextRunAtMs,
    invitation_expires_at_ms: invitationExpiresAtMs,
    gateway_charge_pk: transfer.gatewayChargePk,
    created_at_ms: nowMs,
  };
  const posting = {
    kind: 'transfer.execute',
    debitAccountId: merchantAccount(merchantId, 'available'),
    creditAccountId: merchantAccount(merchantId, 'in_flight'),
    amountCents: transfer.amountCents,
    merchantId,
    nowMs,
  } as const;
  const note = waitingFor === null ? 'created' : `created; waiting for ${waitingFor}`;
  // docs/api-decisions.md section 11: one INSERT each, built from the values above (no read).
  const status = {
    state: STATE.new,
    substate,
    final: 0,
    code: 0,
    waiting_for: waitingFor,
    receiver_phone: transfer.receiverPhone,
    provider_error_text: null,
    provider_error_code: null,
    trans: null,
    sum_prov: null,
    gateway_charge_pk: transfer.gatewayChargePk,
  };
  const eventTypes: EventType[] = waitingFor === null ? ['transfer.created'] : ['transfer.created', 'transfer.waiting'];
  const dataJson = transferEventData(service, { id: transfer.id, status }, nowMs);
  const events = eventTypes.map((type) => ({ type, dataJson }));
  return { transfer: newTransfer, posting, note, events, gatewayChargePk: transfer.gatewayChargePk, eventTypes, status };
}

/** The write of a plan, in the caller's transaction; every refusal throws, so the caller's operation rolls back whole. */
async function writeExecute(tx: Txn, service: Service, plan: ExecutePlan, duplicate: () => never): Promise<void> {
  const belowFloor: () => never = () => fail('insufficient_funds', `balance + overdraft does not cover amount ${formatCents(plan.posting.amountCents)}`);
  const { transfer, posting, note, events } = plan;
  if (plan.gatewayChargePk === null) {
    // The common case, in one store call (one statement on PostgreSQL: the merchant's balance row is locked for less time).
    const recorded = await recordExecute(tx, { transfer, posting, note, events });
    if (recorded.kind === 'duplicate') duplicate();
    if (recorded.kind === 'below_floor') belowFloor();
    return;
  }
  const pk = await insertTransfer(tx, transfer);
  if (pk === null) duplicate();
  const chargePk = plan.gatewayChargePk;
  const merchantId = transfer.merchant_id;
  const nowMs = transfer.created_at_ms;
  const linked = await linkCharge(tx, { transferPk: pk, chargePk, merchantId, amountCents: transfer.amount_cents, how: 'gateway', nowMs });
  if (!linked) {
    const refusal = gatewayRefusal(chargePk, await gatewayChargeFacts(tx, chargePk), merchantId, transfer.amount_cents);
    fail('invalid_request', refusal ?? gatewayRaceRefusal(chargePk));
  }
  if ((await post(tx, { ...posting, refId: String(pk) })) === 'below_floor') belowFloor();
  await insertEvent(tx, pk, STATE.new, transfer.substate, note, nowMs);
  for (const type of plan.eventTypes) await emitTransferEvent(tx, service, type, { merchantId, id: transfer.id, status: plan.status }, nowMs);
}
