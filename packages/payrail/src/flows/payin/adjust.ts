// Adjust of an unsettled card transaction (accept.blue's /transactions/adjust;
// docs/acceptblue-compatibility.md): its amount (the new total) and its
// details, once. The store decides and records it in one transaction
// (store/payin/adjust.ts, which says why no processor is asked and why an
// amount may only go down on an authorization). Adjust-capture is this, then
// the capture of card-lifecycle.ts.
import crypto from 'node:crypto';
import { canonicalJson } from '../../domain/canonical-json.ts';
import type { ChargeRow } from '../../store/charges.ts';
import { adjustCharge } from '../../store/payin/adjust.ts';
import { renderCharge } from './charge-answers.ts';
import { IDEMPOTENCY_KEY_TTL_MS } from './charge.ts';
import { type Caller, failOperation, type OperationDeps } from './operation-common.ts';
import type { Idem } from './capture-void.ts';
import type { Reply } from '../common/idempotency-replay.ts';
import { EVENT_VIEWS } from '../events/emit.ts';

type Member = Readonly<Record<string, unknown>>;

/** What an adjust may change beside the amount, in accept.blue's wire names (each absent member is left as it is). */
export interface AdjustDetails {
  readonly customer?: Member;
  readonly transaction_details?: Member;
  readonly amount_details?: Member;
  readonly billing_info?: Member;
  readonly shipping_info?: Member;
  readonly custom_fields?: Member;
  readonly line_items?: readonly Member[];
}

/** Members an adjust merges into what the charge keeps (a member sent replaces that member); the others it replaces whole. */
const MERGED = ['customer', 'transaction_details', 'billing_info', 'shipping_info', 'custom_fields'] as const;
const REPLACED = ['amount_details', 'line_items'] as const;

/**
 * The stored charge request with `details` applied, under the same names the
 * charge keeps them (accept.blue's), so every view of the transaction shows
 * them. accept.blue replaces line items and amount details whole.
 */
export function applyAdjustDetails(requestJson: string, details: AdjustDetails): string {
  const stored = JSON.parse(requestJson) as Record<string, unknown>;
  for (const name of MERGED) {
    const sent = details[name];
    if (sent === undefined) continue;
    const kept = stored[name];
    stored[name] = typeof kept === 'object' && kept !== null && !Array.isArray(kept) ? { ...kept, ...sent } : { ...sent };
  }
  for (const name of REPLACED) {
    const sent = details[name];
    if (sent !== undefined) stored[name] = sent;
  }
  return JSON.stringify(stored);
}

const render = (row: ChargeRow): string => JSON.stringify(renderCharge(row));

/** One adjust of charge `pk` to `amountCents` (null: the amount stays) with `details`. */
export async function adjustOnce(
  deps: OperationDeps,
  request: { caller: Caller; pk: number; amountCents: number | null; details: AdjustDetails; idem: Idem; replay: () => Promise<Reply> },
): Promise<Reply> {
  const { caller, pk, amountCents, details } = request;
  const adjustHash = crypto.hash('sha256', canonicalJson({ reference_number: pk, amount_cents: amountCents, details }), 'hex');
  const step = await adjustCharge(deps.db, {
    caller,
    pk,
    amountCents,
    adjustHash,
    applyDetails: (requestJson) => applyAdjustDetails(requestJson, details),
    idem: request.idem,
    clock: deps.clock,
    keyTtlMs: IDEMPOTENCY_KEY_TTL_MS,
    views: { events: EVENT_VIEWS, render },
  });
  if (step.kind === 'refused') return failOperation(step.refusal, pk, 'adjusted');
  if (step.kind === 'taken') return request.replay();
  return { statusCode: 200, json: step.json };
}
