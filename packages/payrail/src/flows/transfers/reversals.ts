// Reversals of completed payouts (behaviour.md section 18). A payout network
// sometimes takes back a payout it had completed. Spec 3.2 rule 1 holds: the
// transfer stays final at 60, and its status gains the `reversed` attribute.
//
// Lifecycle: a reversal is `reported` by the network (a callback whose
// re-read of the payout answers `reversed`, or `failed` for a payout Payrail
// recorded as completed) or by an operator who learned of it from the
// network; an operator then `confirms` it (one transaction: the guarded
// state change, the posting paid_out -> available for the transfer's amount,
// the `transfer.reversed` event, the audit row) or `rejects` it (no money
// moves, the attribute goes). Nothing is credited without an operator: a
// network's word alone never gives money back.
import type { AuditActor } from '../../domain/audit.ts';
import { isoTime } from '../../domain/iso-time.ts';
import { merchantAccount, type PostingInput } from '../../domain/ledger.ts';
import { isTransferId } from '../../domain/references.ts';
import {
  REVERSAL_CODE_LENGTH_MAX,
  REVERSAL_TEXT_LENGTH_MAX,
  REVERSALS_LISTED_MAX,
  type ReversalMark,
  type ReversalSource,
  type ReversalState,
} from '../../domain/transfer-reversals.ts';
import { fail } from '../../errors.ts';
import type { Service } from '../../service.ts';
import type { NewEvent } from '../../store/events.ts';
import type { TransferRow, TransferStatusRow } from '../../store/transfers.ts';
import { type DecideAnswer, decideReversal, listReversals, type ReversalRow, reportReversal } from '../../store/transfers/reversals.ts';
import { type AuditDeps, audited, SYSTEM_ACTOR } from '../operations/audit.ts';
import { transferEventDataAt } from './events.ts';

export type ReversalDeps = AuditDeps & Pick<Service, 'providers' | 'corridors'>;

/** A reversal as the CLI and the panel show it. */
export interface ReversalView {
  readonly merchant_id: string;
  readonly transfer_id: string;
  readonly amount_cents: number;
  readonly source: ReversalSource;
  readonly error_code: string;
  readonly error_text: string;
  readonly state: ReversalState;
  readonly reported_at: string;
  readonly reported_by: string;
  readonly decided_at: string | null;
  readonly decided_by: string | null;
  readonly note: string | null;
}

export function reversalView(row: ReversalRow): ReversalView {
  return {
    merchant_id: row.merchant_id,
    transfer_id: row.transfer_id,
    amount_cents: Number(row.amount_cents),
    source: row.source,
    error_code: row.network_error_code,
    error_text: row.network_error_text,
    state: row.state,
    reported_at: isoTime(Number(row.reported_at_ms)),
    reported_by: row.reported_by,
    decided_at: row.decided_at_ms === null ? null : isoTime(Number(row.decided_at_ms)),
    decided_by: row.decided_by,
    note: row.decision_note,
  };
}

/** How an actor is named on the reversal itself (the audit row keeps the whole actor). */
function actorName(actor: AuditActor): string {
  return `${actor.kind}:${actor.label ?? actor.id ?? actor.kind}`;
}

export type NetworkReport = 'reversal-reported' | 'reversal-known' | 'not-paid-out' | 'no-such-transfer';

/**
 * The network said a payout Payrail recorded as completed was taken back:
 * recorded once for the operator. A replayed or repeated report (a second
 * callback) changes nothing, nor does it reopen a reversal the operator
 * rejected: the operator can report it again if the network insists.
 */
export async function reportNetworkReversal(
  deps: ReversalDeps,
  input: { readonly transferPk: number; readonly connector: string; readonly errorCode: string; readonly errorText: string },
): Promise<NetworkReport> {
  const nowMs = deps.clock.nowMs();
  const actor: AuditActor = { ...SYSTEM_ACTOR, label: `payout network ${input.connector}`.slice(0, 120) };
  const answer = await reportReversal(deps.db, {
    target: { pk: input.transferPk },
    source: 'network',
    errorCode: input.errorCode.slice(0, REVERSAL_CODE_LENGTH_MAX),
    errorText: input.errorText.slice(0, REVERSAL_TEXT_LENGTH_MAX),
    reportedBy: `network:${input.connector}`.slice(0, 200),
    reopenRejected: false,
    nowMs,
    audit: { actor, event: { action: 'transfer.reversal_report', target: null, detail: `by the network, code ${input.errorCode.slice(0, 60)}` }, atMs: nowMs },
  });
  switch (answer.kind) {
    case 'reported':
      return 'reversal-reported';
    case 'already':
      return 'reversal-known';
    case 'not_paid_out':
      return 'not-paid-out';
    case 'not_found':
      return 'no-such-transfer';
  }
}

function requiredText(text: string | undefined, what: string): string {
  const trimmed = (text ?? '').trim();
  if (trimmed.length === 0) fail('invalid_request', `${what} is required`);
  if (trimmed.length > REVERSAL_TEXT_LENGTH_MAX) fail('invalid_request', `${what} is longer than ${REVERSAL_TEXT_LENGTH_MAX} characters`);
  return trimmed;
}

function optionalText(text: string | undefined, what: string): string | null {
  const trimmed = (text ?? '').trim();
  if (trimmed.length > REVERSAL_TEXT_LENGTH_MAX) fail('invalid_request', `${what} is longer than ${REVERSAL_TEXT_LENGTH_MAX} characters`);
  return trimmed === '' ? null : trimmed;
}

function knownTransfer(input: { merchantId: string; transferId: string }): void {
  if (!isTransferId(input.transferId)) fail('transfer_not_found', `merchant ${input.merchantId.slice(0, 40)} has no transfer ${input.transferId.slice(0, 40)}`);
}

/** An operator reports a reversal the network told them of (by mail, in a statement); it then awaits confirmation like a network's. */
export async function reportReversalByOperator(
  deps: ReversalDeps,
  input: { readonly merchantId: string; readonly transferId: string; readonly reason: string; readonly code?: string },
  by: AuditActor,
): Promise<ReversalView> {
  const event = { action: 'transfer.reversal_report' as const, target: input.transferId.slice(0, 40), merchantId: input.merchantId.slice(0, 40) };
  return audited(deps, by, event, async (audit) => {
    knownTransfer(input);
    const reason = requiredText(input.reason, 'a reason (what the network reported)');
    const code = (input.code ?? '').trim();
    if (code.length > REVERSAL_CODE_LENGTH_MAX) fail('invalid_request', `the code is longer than ${REVERSAL_CODE_LENGTH_MAX} characters`);
    const nowMs = deps.clock.nowMs();
    const answer = await reportReversal(deps.db, {
      target: { merchantId: input.merchantId, transferId: input.transferId },
      source: 'operator',
      errorCode: code,
      errorText: reason,
      reportedBy: actorName(by),
      reopenRejected: true,
      nowMs,
      audit: { ...audit, event: { ...audit.event, detail: reason.slice(0, 200) } },
    });
    switch (answer.kind) {
      case 'reported':
        return reversalView(answer.reversal);
      case 'already':
        return fail('invalid_state', `transfer ${input.transferId} already has a reversal (${answer.reversal.state})`);
      case 'not_paid_out':
        return fail(
          'invalid_state',
          `transfer ${input.transferId} is not a completed payout (state ${answer.transfer.state}); only a payout at 60 can be reversed`,
        );
      case 'not_found':
        return fail('transfer_not_found', `merchant ${input.merchantId} has no transfer ${input.transferId}`);
    }
  });
}

/** The status row of a transfer with the reversal mark it ends with, for its event. */
function statusRowOf(row: TransferRow, reversal: ReversalMark): TransferStatusRow {
  return {
    state: row.state,
    substate: row.substate,
    final: row.final,
    code: row.code,
    waiting_for: row.waiting_for,
    receiver_phone: row.receiver_phone,
    provider_error_text: row.provider_error_text,
    provider_error_code: row.provider_error_code,
    trans: row.trans,
    sum_prov: row.sum_prov,
    gateway_charge_pk: row.gateway_charge_pk,
    service: row.service,
    reversal,
  };
}

function decided(answer: DecideAnswer, input: { merchantId: string; transferId: string }): ReversalView {
  switch (answer.kind) {
    case 'decided':
      return reversalView(answer.reversal);
    case 'not_found':
      return fail('transfer_not_found', `merchant ${input.merchantId} has no transfer ${input.transferId}`);
    case 'no_reversal':
      return fail('not_found', `transfer ${input.transferId} has no reported reversal`);
    case 'not_reported':
      return fail('invalid_state', `the reversal of transfer ${input.transferId} is already ${answer.reversal.state}`);
  }
}

async function decide(
  deps: ReversalDeps,
  input: { readonly merchantId: string; readonly transferId: string; readonly note: string | undefined },
  decision: 'confirmed' | 'rejected',
  by: AuditActor,
): Promise<ReversalView> {
  const action = decision === 'confirmed' ? ('transfer.reversal_confirm' as const) : ('transfer.reversal_reject' as const);
  const given = (input.note ?? '').trim();
  const event = {
    action,
    target: input.transferId.slice(0, 40),
    merchantId: input.merchantId.slice(0, 40),
    ...(given === '' ? {} : { detail: given.slice(0, 200) }),
  };
  return audited(deps, by, event, async (audit) => {
    knownTransfer(input);
    // A rejection says why (nothing else records it); a confirmation's note is optional.
    const note = decision === 'rejected' ? requiredText(input.note, 'a reason for rejecting it') : optionalText(input.note, 'the note');
    const nowMs = deps.clock.nowMs();
    const posting = (transfer: TransferRow, amountCents: number): PostingInput => ({
      kind: 'transfer.reverse',
      debitAccountId: merchantAccount(transfer.merchant_id, 'paid_out'),
      creditAccountId: merchantAccount(transfer.merchant_id, 'available'),
      amountCents,
      merchantId: transfer.merchant_id,
      refId: String(transfer.pk),
      nowMs,
    });
    const eventOf = (transfer: TransferRow): NewEvent => ({
      merchantId: transfer.merchant_id,
      type: 'transfer.reversed',
      dataJson: transferEventDataAt(deps, { id: transfer.id, status: statusRowOf(transfer, 'confirmed') }, isoTime(nowMs)),
      nowMs,
    });
    const answer = await decideReversal(deps.db, {
      merchantId: input.merchantId,
      transferId: input.transferId,
      decision,
      note,
      decidedBy: actorName(by),
      nowMs,
      posting,
      event: eventOf,
      audit,
    });
    return decided(answer, input);
  });
}

/** Confirms a reported reversal: the merchant is credited the transfer's amount (paid_out -> available), once. */
export function confirmReversal(
  deps: ReversalDeps,
  input: { readonly merchantId: string; readonly transferId: string; readonly note?: string },
  by: AuditActor,
): Promise<ReversalView> {
  return decide(deps, { merchantId: input.merchantId, transferId: input.transferId, note: input.note }, 'confirmed', by);
}

/** Rejects a reported reversal (the network's report was wrong, or withdrawn): no money moves, the attribute goes. */
export function rejectReversal(
  deps: ReversalDeps,
  input: { readonly merchantId: string; readonly transferId: string; readonly reason: string },
  by: AuditActor,
): Promise<ReversalView> {
  return decide(deps, { merchantId: input.merchantId, transferId: input.transferId, note: input.reason }, 'rejected', by);
}

/** Reversals in a state (any when null), newest report first. */
export async function listTransferReversals(
  deps: Pick<AuditDeps, 'db'>,
  query: { readonly state: ReversalState | null; readonly limit: number },
): Promise<ReversalView[]> {
  const limit = Math.max(1, Math.min(REVERSALS_LISTED_MAX, Math.trunc(query.limit)));
  return (await listReversals(deps.db, { state: query.state, limit })).map(reversalView);
}
