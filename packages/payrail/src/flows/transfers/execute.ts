// Execute transfer (docs/interface-spec.md section 4 op 3). Validation and the provider look-ups run
// first, outside any transaction; then one store command (store/transfers/execute.ts) reads what
// the plan needs (the merchant's link rule, a quote for this id), plans with planExecute below,
// and in one atomic write creates the transfer in state 0, links its payin when gatewayId names
// one, and moves the amount from the merchant's available balance to in flight. Every refusal
// (duplicate id, gatewayId, funds) rolls the whole write back and comes back as the answer,
// turned here into the API's error.
import { merchantAccount } from '../../domain/ledger.ts';
import { formatCents } from '../../domain/money.ts';
import { INVITATION_LIFETIME_MS, STATE, SUBSTATE, type WaitingFor } from '../../domain/transfer-states.ts';
import type { EventType } from '../../domain/webhooks.ts';
import { fail } from '../../errors.ts';
import { assertRateText } from '../../providers/fx.ts';
import type { Service } from '../../service.ts';
import { type ExecuteContext, type ExecuteWrite, executeTransfer as executeInStore } from '../../store/transfers/execute.ts';
import type { TransferStatusRow } from '../../store/transfers.ts';
import { transferEventData } from './events.ts';
import { gatewayRaceRefusal, gatewayRefusal } from './gateway.ts';
import { fxRate } from './lookups.ts';
import { payoutConnectorOf, receivedMinorOf } from './networks.ts';
import { kycDepsOf } from './kyc-sessions.ts';
import { checkReceiver, type ReceiverStatus } from './receiver.ts';
import { validateTransfer, type TransferRequestBody } from './validate.ts';

export interface ExecuteResult {
  readonly id: string;
  readonly state: number;
  readonly substate: number;
}

export async function executeTransfer(service: Service, merchantId: string, body: TransferRequestBody): Promise<ExecuteResult> {
  const transfer = validateTransfer(body, service.corridors);
  const receiverStatus = await checkReceiver(kycDepsOf(service), transfer.corridor, transfer.receiverPhone, transfer.amountCents);
  const eventData = (status: TransferStatusRow, nowMs: number) => transferEventData(service, { id: transfer.id, status }, nowMs);
  const answer = await executeInStore(service.db, {
    merchantId,
    transferId: transfer.id,
    gatewayChargePk: transfer.gatewayChargePk,
    nowMs: () => service.clock.nowMs(),
    rate: () => fxRate(service.providers, transfer.corridor),
    honoursQuote: (context, nowMs) => quotedRate(transfer, context, nowMs) !== null,
    plan: (context, nowMs, providerRate) =>
      planExecute({
        merchantId,
        transfer,
        receiverStatus,
        context,
        nowMs,
        providerRate,
        eventData,
        receivedMinorOf: (rate) => receivedMinorOf(service.providers, transfer.corridor, transfer.amountCents, rate),
        payoutConnector: payoutConnectorOf(service.providers, transfer.corridor),
      }),
  });
  switch (answer.kind) {
    case 'recorded':
      return { id: transfer.id, state: STATE.new, substate: answer.substate };
    case 'duplicate':
      return fail('duplicate_transfer', `id ${transfer.id} was already used for a transfer`);
    case 'gateway_refused': {
      const payin = { chargePk: answer.chargePk, attribute: transfer.gatewayAttribute };
      return fail('invalid_request', gatewayRefusal(payin, answer.facts, merchantId, transfer.amountCents) ?? gatewayRaceRefusal(payin));
    }
    case 'below_floor':
      return fail('insufficient_funds', `balance + overdraft does not cover amount ${formatCents(transfer.amountCents)}`);
  }
}

type ValidTransfer = ReturnType<typeof validateTransfer>;

/** The rate of a quote (POST /api/check) this execute honours, or null: same service and amount, not expired. */
function quotedRate(transfer: ValidTransfer, context: ExecuteContext, nowMs: number): string | null {
  const honoured =
    context.quote_fx_rate !== null &&
    context.quote_service === transfer.corridor.service &&
    Number(context.quote_amount_cents) === transfer.amountCents &&
    Number(context.quote_expires_at_ms) >= nowMs;
  return honoured ? context.quote_fx_rate : null;
}

/** What planExecute decides from: the request, the receiver's status, the store's context, the time and the rates. */
export interface ExecuteInputs {
  readonly merchantId: string;
  readonly transfer: ValidTransfer;
  readonly receiverStatus: ReceiverStatus;
  readonly context: ExecuteContext;
  readonly nowMs: number;
  /** The provider's rate; called only when no quote is honoured. */
  readonly providerRate: () => string;
  /** A transfer event's `data` for the status just written (the status view at `nowMs`). */
  readonly eventData: (status: TransferStatusRow, nowMs: number) => string;
  /** The received amount at a rate, rounded as the corridor's network accepts (networks.ts). */
  readonly receivedMinorOf: (rate: string) => number;
  /** The network the corridor names now: the transfer is recorded with it and sent there (networks.ts). */
  readonly payoutConnector: string;
}

/** Pure: the rows execute writes, made at `nowMs`. */
export function planExecute(inputs: ExecuteInputs): ExecuteWrite {
  const { merchantId, transfer, receiverStatus, context, nowMs, providerRate } = inputs;
  const corridor = transfer.corridor;
  const fxRate = quotedRate(transfer, context, nowMs) ?? assertRateText(providerRate(), corridor.currency);
  const receivedMinor = inputs.receivedMinorOf(fxRate);

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
    payout_connector: inputs.payoutConnector,
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
    service: corridor.service,
  };
  const eventTypes: EventType[] = waitingFor === null ? ['transfer.created'] : ['transfer.created', 'transfer.waiting'];
  const dataJson = inputs.eventData(status, nowMs);
  const events = eventTypes.map((type) => ({ type, dataJson }));
  return { transfer: newTransfer, posting, note, events };
}
