// The charge and verify answers in the accept.blue dialect
// (docs/acceptblue-compatibility.md): accept.blue's CreditCardResponse (and
// VerificationResponse) with its full Transaction object. A decline or a
// processor error is an answer too, HTTP 200 with status "Declined" or
// "Error". Pure: the same row always renders the same body, which an
// idempotent replay and the worker's recorded answers rely on.
import { acceptBlueCardType } from '../../domain/acceptblue-card-type.ts';
import { avsResultOf, cvvResultOf } from '../../domain/card-results.ts';
import { centsToDollarNumber } from '../../domain/money.ts';
import { ACCEPTBLUE_API_VERSION } from '../../domain/wire-dialect.ts';
import type { FundedTransferRow } from '../../store/transfers.ts';
import type { ChargeView, StoredChargeRequest } from './charge-view.ts';
import { renderAcceptBlueTransaction, requestedCentsOf } from './transaction-acceptblue.ts';
import { checkOf } from '../ach/check-view.ts';

/** accept.blue's result and its code, by what the processor answered. */
function resultOf(charge: ChargeView, partial: boolean): { status: string; status_code: string } {
  switch (charge.status) {
    case 'approved':
      return partial ? { status: 'Partially Approved', status_code: 'P' } : { status: 'Approved', status_code: 'A' };
    // Held for review or not answered yet: accept.blue's "Submitted"; P as the spec dialect's pending, since every
    // integration needs a status_code and none may read it as a final approval but those that count P as one.
    case 'pending':
      return { status: 'Submitted', status_code: 'P' };
    case 'declined':
      return { status: 'Declined', status_code: 'D' };
    default:
      return { status: 'Error', status_code: 'E' };
  }
}

export function renderAcceptBlueCharge(charge: ChargeView, funded: readonly FundedTransferRow[]): Record<string, unknown> {
  const request = JSON.parse(charge.request_json) as StoredChargeRequest;
  const approved = charge.status === 'approved';
  const partial = approved && charge.amount_cents < requestedCentsOf(charge, request);
  const refused = charge.status === 'declined' || charge.status === 'failed';
  const avsCode = charge.avs_result_code === null || charge.avs_result_code === '' ? null : charge.avs_result_code;
  const cvvCode = charge.cvv_result_code === null || charge.cvv_result_code === '' ? null : charge.cvv_result_code;
  const common = {
    version: ACCEPTBLUE_API_VERSION,
    ...resultOf(charge, partial),
    // A success carries no error value: some plugins fail any answer whose error_message is not empty.
    error_message: refused ? charge.error_message : null,
    error_code: refused ? charge.error_code : null,
    error_details: null,
    reference_number: charge.pk,
    auth_amount: approved ? centsToDollarNumber(charge.amount_cents) : 0,
    auth_code: approved && charge.auth_code !== null && charge.auth_code !== '' ? charge.auth_code : null,
  };
  // A check: accept.blue's Check Response (BaseChargeResponse with a CheckTransaction), no card members.
  if (checkOf(charge) !== null) return { ...common, transaction: renderAcceptBlueTransaction(charge, funded) };
  return {
    ...common,
    avs_result: avsCode === null ? null : avsResultOf(avsCode).text,
    avs_result_code: avsCode,
    cvv2_result: cvvCode === null ? null : cvvResultOf(cvvCode),
    cvv2_result_code: cvvCode,
    card_type: acceptBlueCardType(charge.card_type),
    last_4: charge.last4,
    // The token an approval issued (save_card), null when none was asked for or issued.
    card_ref: charge.card_ref ?? null,
    bin_type: { type: 'C' },
    transaction: renderAcceptBlueTransaction(charge, funded),
  };
}
