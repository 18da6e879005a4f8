// The charge API's reply bodies (docs/interface-spec.md section 2.2, docs/api-decisions.md section 8), built from a
// charge row. Shape A for approved and pending charges, shape B for declined
// and failed ones. Every field is always present: fields the spec types as
// nullable are null when empty, all other strings are "". Pure functions: the
// same row always renders the same body, which is what an idempotent replay
// and GET /api/v2/transactions/:id rely on.
import { avsResultOf, cvvResultOf } from '../../domain/card-results.ts';
import { isoTime } from '../../domain/iso-time.ts';
import { centsToDollarNumber } from '../../domain/money.ts';
import type { FundedTransferRow } from '../../store/transfers.ts';
import type { WireDialect } from '../../domain/wire-dialect.ts';
import type { ChargeView, StoredChargeRequest } from './charge-view.ts';
import { renderAcceptBlueCharge } from './charge-acceptblue.ts';
import { renderTransaction } from './transaction-view.ts';

/** The `version` field of every shape A reply: the payin API's version text. */
export const PAYIN_API_VERSION = '2.0';

// Where their importers find them.
export type { ChargeView, StoredChargeRequest } from './charge-view.ts';

/**
 * `funded`: the transfers the charge pays for, shown in custom_fields (see transfers/funding.ts).
 * `dialect`: the caller's wire dialect; accept.blue's CreditCardResponse in `acceptblue` (charge-acceptblue.ts).
 */
export function renderCharge(charge: ChargeView, funded: readonly FundedTransferRow[] = [], dialect: WireDialect = 'spec'): Record<string, unknown> {
  if (dialect === 'acceptblue') return renderAcceptBlueCharge(charge, funded);
  return charge.status === 'approved' || charge.status === 'pending' ? renderAcceptedCharge(charge, funded) : renderRefusedCharge(charge);
}

/** The dialect a charge was asked in (kept with its request): the worker's and a replay's answers are written in it. */
export function dialectOf(charge: Pick<ChargeView, 'request_json'>): WireDialect {
  return (JSON.parse(charge.request_json) as StoredChargeRequest).wire_dialect ?? 'spec';
}

/** An approved or pending charge: the full transaction body with card, AVS and CVV results (spec shape A). */
function renderAcceptedCharge(charge: ChargeView, funded: readonly FundedTransferRow[]): Record<string, unknown> {
  const approved = charge.status === 'approved';
  // What was authorized: after a partial approval, less than the amount asked for (shown in transaction.amount_details).
  const authorized = approved ? centsToDollarNumber(charge.amount_cents) : 0;
  const authCode = charge.auth_code ?? '';
  const avs = avsResultOf(charge.avs_result_code);
  const avsCode = charge.avs_result_code ?? '';
  const cvvText = cvvResultOf(charge.cvv_result_code);
  const cvvCode = charge.cvv_result_code ?? '';
  return {
    status: approved ? 'Approved' : 'Pending',
    status_code: approved ? 'A' : 'P',
    reference_number: charge.pk,
    auth_code: authCode,
    auth_amount: authorized,
    card_type: charge.card_type,
    last_4: charge.last4,
    avs_result: avs.text,
    avs_result_code: avsCode,
    cvv2_result: cvvText,
    cvv2_result_code: cvvCode,
    version: PAYIN_API_VERSION,
    transaction: renderTransaction(charge, funded),
    // Only a request with save_card shows it: every other answer stays as it was.
    ...(charge.save_card_ref === null ? {} : { card_ref: charge.card_ref }),
  };
}

/** A declined or failed charge: the short body with its error (spec shape B). */
function renderRefusedCharge(charge: ChargeView): Record<string, unknown> {
  return {
    id: String(charge.pk),
    status: charge.status,
    amount: centsToDollarNumber(charge.amount_cents),
    currency: charge.currency,
    error: { code: charge.error_code ?? '', message: charge.error_message ?? '' },
    card: { last_four: charge.last4, card_type: charge.card_type },
    created_at: isoTime(charge.created_at_ms),
  };
}
