// Capture, void and refund from the control panel (docs/api-decisions.md
// section 10): the same flows as the payin API, for a charge of the
// signed-in merchant. A panel action has no Idempotency-Key (the panel asks
// for confirmation and answers with a redirect instead); a refund is
// recorded under the charge's own payin source. A check (behaviour section
// 17) is voided only while pending and refunded only when achRefundProblem
// allows; it never goes through the card flows. Each action is audited
// (who, which charge, how much, how it ended): the payin flows commit the
// money in their own transactions, so the event is written right after the
// outcome is known, and a refusal of the request records its error.
import { achRefundProblem, achVoidProblem, type AchState } from '../../domain/ach.ts';
import { parseDollarString } from '../../domain/money.ts';
import type { AuditActor } from '../../domain/audit.ts';
import { fail } from '../../errors.ts';
import { audited, recordAudit } from '../operations/audit.ts';
import type { Service } from '../../service.ts';
import { readAchEntry } from '../../store/ach/entries.ts';
import { achNowMs } from '../ach/check-clock.ts';
import { chargeOfMerchant } from '../../store/payin/operation-common.ts';
import { createCardLifecycleFlow } from '../payin/card-lifecycle.ts';
import { operationDepsOf } from '../payin/operation-common.ts';
import { checkDepsFor } from '../ach/check-charge.ts';

export type PanelChargeAction = 'capture' | 'void' | 'refund';
export const PANEL_CHARGE_ACTIONS: readonly PanelChargeAction[] = ['capture', 'void', 'refund'];

/** The outcome a merchant reads after an action: what the transaction shows now, or why the processor said no. */
export interface ActionOutcome {
  /** The transaction the action produced or changed (a refund's own reference number for a refund). */
  readonly referenceNumber: number;
  /** A decline or failure of the processor; null when the action went through (or is pending). */
  readonly refused: { code: string; message: string } | null;
}

/** "Now" for the check rules: the payin API's (flows/ach/check-clock.ts), so the panel allows a refund when the API does. */
export const checkRulesNowMs = achNowMs;

/** An action a check's page offers: enabled when `blocked` is null, else shown disabled with the reason. */
export interface OfferedCheckAction {
  readonly action: 'void' | 'refund';
  /** What the refund form starts with (what is left to refund); null for a void. */
  readonly amountCents: number | null;
  readonly blocked: string | null;
}

/**
 * What a check charge's page offers at `nowMs`: a void while it is pending
 * (or a void in progress, disabled), a refund once it is settled (disabled
 * with the reason until achRefundProblem allows it). Refunds and credits
 * (ACH credits) offer nothing.
 */
export function checkActionsOffered(
  charge: {
    kind: string;
    created_at_ms: number;
    captured_cents: number;
    refunded_cents: number;
    linked_cents: number;
    ach_state: AchState | null;
    /** When the check was submitted, on the merchant's ACH clock (the API's refund wait counts from it); null for older checks. */
    processed_at_ach_ms?: number | null;
  },
  nowMs: number,
): OfferedCheckAction[] {
  const state = charge.ach_state;
  if (charge.kind !== 'charge' || state === null) return [];
  if (state === 'pending' || state === 'voiding') {
    return [{ action: 'void', amountCents: null, blocked: achVoidProblem(state) }];
  }
  if (state !== 'settled') return [];
  const refundable = charge.captured_cents - charge.refunded_cents - charge.linked_cents;
  if (refundable <= 0) return [];
  return [
    {
      action: 'refund',
      amountCents: refundable,
      blocked: achRefundProblem(state, charge.processed_at_ach_ms ?? charge.created_at_ms, nowMs),
    },
  ];
}

type ActionService = Pick<Service, 'db' | 'clock' | 'log' | 'providers' | 'providerKeys' | 'config'>;

/** Runs `action` on charge `pk` of the merchant; `amountText` is dollars ("12.50") or "" for the whole amount. Audited as `by`. */
export async function runChargeAction(
  service: ActionService,
  merchantId: string,
  pk: number,
  action: PanelChargeAction,
  amountText: string,
  by: AuditActor,
): Promise<ActionOutcome> {
  const amount = amountText.trim();
  const event = { action: `charge.${action}`, target: String(pk), merchantId, detail: amount === '' ? null : `amount ${amount.slice(0, 20)}` } as const;
  const outcome = await audited(service, by, event, () => runAction(service, merchantId, pk, action, amount));
  const refused = outcome.refused === null ? {} : { detail: `${event.detail === null ? '' : `${event.detail}; `}refused ${outcome.refused.code}` };
  await recordAudit(service, by, { ...event, ...refused }, outcome.refused === null ? 'success' : 'failure');
  return outcome;
}

async function runAction(service: ActionService, merchantId: string, pk: number, action: PanelChargeAction, amount: string): Promise<ActionOutcome> {
  const charge = await chargeOfMerchant(service.db, { pk, merchantId });
  if (charge === undefined) fail('not_found', `No charge with reference number ${pk} was found.`);
  if (amount !== '' && !parseDollarString(amount).ok) fail('invalid_amount', 'The amount must be dollars with at most 2 decimals, for example 12.50.');
  // A check goes through the same flow, which hands it to the check operations; what its state rules out is refused first, with the page's reason.
  if ((await readAchEntry(service.db, pk, merchantId)) !== undefined) await refuseBlockedCheckAction(service, merchantId, pk, action);
  const flow = createCardLifecycleFlow(operationDepsOf(service), checkDepsFor(service));
  const caller = { merchantId, sourceId: charge.source_id };
  const input = { referenceNumber: pk, amount: amount === '' ? undefined : Number(amount), amountText: amount === '' ? null : amount, idempotencyKey: null };
  const run = action === 'capture' ? flow.capture : action === 'void' ? flow.voidCharge : flow.refund;
  const reply = JSON.parse((await run(caller, input)).json) as { reference_number?: number; id?: string; error?: { code: string; message: string } };
  if (reply.error !== undefined) return { referenceNumber: Number(reply.id), refused: reply.error };
  return { referenceNumber: reply.reference_number ?? pk, refused: null };
}

/**
 * Refuses (invalid_state, with the reason its page shows) an action the
 * check `pk` does not allow now, before the confirmation step asks; a card
 * charge, or an unknown one, passes (runChargeAction judges those).
 */
export async function refuseBlockedCheckAction(
  service: Pick<Service, 'db' | 'clock'>,
  merchantId: string,
  pk: number,
  action: PanelChargeAction,
): Promise<void> {
  const charge = await chargeOfMerchant(service.db, { pk, merchantId });
  const entry = charge === undefined ? undefined : await readAchEntry(service.db, pk, merchantId);
  if (charge === undefined || entry === undefined) return;
  if (action === 'capture') fail('invalid_state', 'A check is not captured: it settles by itself.');
  const offered = checkActionsOffered(
    { ...charge, ach_state: entry.state, processed_at_ach_ms: entry.submitted_ach_ms },
    await checkRulesNowMs(service, merchantId),
  ).find((o) => o.action === action);
  if (offered === undefined) {
    fail('invalid_state', action === 'void' ? (achVoidProblem(entry.state) ?? 'The check cannot be voided.') : `A ${entry.state} check cannot be refunded.`);
  }
  if (offered.blocked !== null) fail('invalid_state', offered.blocked);
}
