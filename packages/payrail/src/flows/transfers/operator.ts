// Operator actions on a waiting transfer (docs/api-decisions.md section 7): link it to a
// card payin by hand, or cancel it (state 80, money back to the merchant).
// Only waiting transfers (state 0, substate 9) qualify: nothing of theirs has
// reached the payout network, so neither action can race a payout.
import { formatCents } from '../../domain/money.ts';
import { parseReferenceNumber } from '../../domain/references.ts';
import { FAILURE, isWaitingFor, STATE, SUBSTATE } from '../../domain/transfer-states.ts';
import { fail } from '../../errors.ts';
import { type AuditActor, audited, SYSTEM_ACTOR } from '../operations/audit.ts';
import type { CorridorTable } from '../../domain/corridors.ts';
import type { Providers } from '../../providers/index.ts';
import type { Db } from '../../store/db.ts';
import type { Clock } from '../../domain/clock.ts';
import { changeFrom, type TransferRow } from '../../store/transfers.ts';
import { changeTransferByOperator, type OperatorAnswer, type OperatorDecision } from '../../store/transfers/operator.ts';
import { transitionsPreparer } from './transitions.ts';

export interface OperatorDeps {
  readonly db: Db;
  readonly clock: Clock;
  /** For the transfer's event (its status view). */
  readonly providers: Providers;
  readonly corridors: CorridorTable;
}

export interface TransferSummary {
  readonly merchant_id: string;
  readonly transfer_id: string;
  readonly state: number;
  readonly substate: number;
  readonly final: number;
  readonly waiting_for: string | null;
  readonly amount_cents: number;
  readonly charge: number | null;
}

function summary(
  row: TransferRow,
  change: { state: number; substate: number; final: number; waiting_for: string | null; gateway_charge_pk: number | null },
): TransferSummary {
  return {
    merchant_id: row.merchant_id,
    transfer_id: row.id,
    state: change.state,
    substate: change.substate,
    final: change.final,
    waiting_for: change.waiting_for,
    amount_cents: Number(row.amount_cents),
    charge: change.gateway_charge_pk,
  };
}

function raced(row: TransferRow): never {
  fail('invalid_request', `transfer ${row.id} changed while this command ran; look at it again and retry`);
}

/** The summary of a change made, or the API's error for an answer that refused it. */
function changed(answer: OperatorAnswer, input: { merchantId: string; transferId: string }): TransferSummary {
  switch (answer.kind) {
    case 'changed':
      return summary(answer.row, answer.change);
    case 'not_found':
      return fail('transfer_not_found', `merchant ${input.merchantId} has no transfer ${input.transferId}`);
    case 'refused':
      return fail('invalid_request', answer.reason);
    case 'raced':
      return raced(answer.row);
    case 'link_refused': {
      const { row, chargePk } = answer;
      return fail(
        'invalid_request',
        `charge ${chargePk} is not an approved card payin of merchant ${row.merchant_id} with ${formatCents(Number(row.amount_cents))} not yet linked`,
      );
    }
  }
}

export async function linkTransfer(
  deps: OperatorDeps,
  input: { merchantId: string; transferId: string; chargeRef: string },
  by: AuditActor = SYSTEM_ACTOR,
): Promise<TransferSummary> {
  const chargePk = parseReferenceNumber(input.chargeRef);
  if (chargePk === null) fail('invalid_request', 'charge must be the reference number (digits) of a card payin');
  const event = { action: 'transfer.link', target: input.transferId, merchantId: input.merchantId, detail: `charge ${chargePk}` } as const;
  const decide = (row: TransferRow, nowMs: number): OperatorDecision => {
    if (!isWaitingFor(row, 'reconciliation')) {
      return { kind: 'refused', reason: `transfer ${row.id} is not waiting for reconciliation (state ${row.state}, substate ${row.substate})` };
    }
    const change = { ...changeFrom(row), substate: SUBSTATE.ready, waiting_for: null, next_run_at_ms: nowMs, gateway_charge_pk: chargePk };
    return { kind: 'change', change, note: `linked to card payin ${chargePk} by the operator`, linkChargePk: chargePk };
  };
  return audited(deps, by, event, async (audit) =>
    changed(await changeTransferByOperator(deps.db, { ...input, nowMs: () => deps.clock.nowMs(), decide, prepare: transitionsPreparer(deps), audit }), input),
  );
}

export async function cancelTransfer(
  deps: OperatorDeps,
  input: { merchantId: string; transferId: string },
  by: AuditActor = SYSTEM_ACTOR,
): Promise<TransferSummary> {
  const event = { action: 'transfer.cancel', target: input.transferId, merchantId: input.merchantId } as const;
  const decide = (row: TransferRow): OperatorDecision => {
    if (row.final !== 0 || row.state !== STATE.new || row.substate !== SUBSTATE.waiting) {
      return {
        kind: 'refused',
        reason: `only a waiting transfer (state 0, substate 9) can be cancelled; transfer ${row.id} is state ${row.state}, substate ${row.substate}`,
      };
    }
    const change = {
      ...changeFrom(row),
      state: STATE.failed,
      substate: SUBSTATE.cancelled,
      final: 1,
      waiting_for: null,
      next_run_at_ms: null,
      provider_error_text: FAILURE.cancelled.text,
      provider_error_code: FAILURE.cancelled.code,
    };
    return { kind: 'change', change, note: 'cancelled by the operator', linkChargePk: null };
  };
  return audited(deps, by, event, async (audit) =>
    changed(await changeTransferByOperator(deps.db, { ...input, nowMs: () => deps.clock.nowMs(), decide, prepare: transitionsPreparer(deps), audit }), input),
  );
}
