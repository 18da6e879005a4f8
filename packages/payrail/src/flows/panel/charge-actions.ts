// Capture, void and refund from the control panel (docs/api-decisions.md
// section 10): the same flows as the payin API, for a charge of the
// signed-in merchant. A panel action has no Idempotency-Key (the panel asks
// for confirmation and answers with a redirect instead); a refund is
// recorded under the charge's own payin source.
import { parseDollarString } from '../../domain/money.ts';
import { fail } from '../../errors.ts';
import type { Service } from '../../service.ts';
import { chargeOfMerchant } from '../../store/payin/operation-common.ts';
import { createCardLifecycleFlow } from '../payin/card-lifecycle.ts';
import { operationDepsOf } from '../payin/operation-common.ts';

export type PanelChargeAction = 'capture' | 'void' | 'refund';
export const PANEL_CHARGE_ACTIONS: readonly PanelChargeAction[] = ['capture', 'void', 'refund'];

/** The outcome a merchant reads after an action: what the transaction shows now, or why the processor said no. */
export interface ActionOutcome {
  /** The transaction the action produced or changed (a refund's own reference number for a refund). */
  readonly referenceNumber: number;
  /** A decline or failure of the processor; null when the action went through (or is pending). */
  readonly refused: { code: string; message: string } | null;
}

/** Runs `action` on charge `pk` of the merchant; `amountText` is dollars ("12.50") or "" for the whole amount. */
export async function runChargeAction(
  service: Pick<Service, 'db' | 'clock' | 'log' | 'providers' | 'providerKeys'>,
  merchantId: string,
  pk: number,
  action: PanelChargeAction,
  amountText: string,
): Promise<ActionOutcome> {
  const charge = await chargeOfMerchant(service.db, { pk, merchantId });
  if (charge === undefined) fail('not_found', `No charge with reference number ${pk} was found.`);
  const amount = amountText.trim();
  if (amount !== '' && !parseDollarString(amount).ok) fail('invalid_amount', 'The amount must be dollars with at most 2 decimals, for example 12.50.');
  const flow = createCardLifecycleFlow(operationDepsOf(service));
  const caller = { merchantId, sourceId: charge.source_id };
  const input = { referenceNumber: pk, amount: amount === '' ? undefined : Number(amount), amountText: amount === '' ? null : amount, idempotencyKey: null };
  const run = action === 'capture' ? flow.capture : action === 'void' ? flow.voidCharge : flow.refund;
  const reply = JSON.parse((await run(caller, input)).json) as { reference_number?: number; id?: string; error?: { code: string; message: string } };
  if (reply.error !== undefined) return { referenceNumber: Number(reply.id), refused: reply.error };
  return { referenceNumber: reply.reference_number ?? pk, refused: null };
}
