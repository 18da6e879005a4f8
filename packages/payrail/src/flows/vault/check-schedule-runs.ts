// A recurring schedule's run on a saved check (docs/checks-and-ach.md): a
// check charge of the schedule's amount (plus the merchant's check
// surcharge) through the check charge machinery, as if the saving source
// (or, with use_this_source_key, the creating one) charged `pm-<id>`
// itself. The (schedule, run date) row is written in the transaction that
// reserves the check, so a date is charged at most once across workers and
// crashes; the entry is then submitted to the ACH network outside any
// transaction. An unanswered submission leaves the check pending; the ACH
// worker submits it again, and the run is applied once the check's
// charges.status is final (approved once the network accepted it).
import { centsToDollarNumber } from '../../domain/money.ts';
import type { PaymentMethodRow } from '../../store/payment-methods.ts';
import { reserveCheck } from '../../store/ach/check-reservation.ts';
import { readMethodAccount } from '../../store/ach/method-account.ts';
import type { ScheduleRow } from '../../store/schedules.ts';
import { methodCheckAccount } from '../ach/check-account.ts';
import { type CheckDeps, checkReplyJson, checkRetryAfterMs } from '../ach/check-charge.ts';
import { submitCheckEntry } from '../ach/check-submit.ts';
import { storedRequest } from '../payin/charge-request.ts';
import { checkSurchargeCents } from '../payin/surcharge.ts';

/** What became of a check run: charged (its check's reference), taken (the date ran, or the schedule changed), or unusable (no network, method gone). */
export type CheckRunResult =
  | { readonly kind: 'charged'; readonly pk: number }
  | { readonly kind: 'taken' }
  | { readonly kind: 'unusable'; readonly why: string };

export async function runCheckOnce(checks: CheckDeps, schedule: ScheduleRow, runDate: string, method: PaymentMethodRow): Promise<CheckRunResult> {
  const network = checks.network;
  if (network === null) return { kind: 'unusable', why: 'this installation takes no checks (PAYRAIL_ACH_NETWORK=none)' };
  const saved = await readMethodAccount(checks.db, schedule.merchant_id, method.pk);
  if (saved === undefined) return { kind: 'unusable', why: 'its saved check is gone' };
  const account = methodCheckAccount(checks.cipher, saved, {});
  const payer = { merchantId: schedule.merchant_id, sourceId: schedule.run_source_id ?? method.source_id };
  const surchargeCents = await checkSurchargeCents(checks.db, schedule.merchant_id, schedule.amount_cents);
  const request = {
    amount: centsToDollarNumber(schedule.amount_cents),
    source: `pm-${method.pk}`,
    transaction_details: { description: schedule.title },
  };
  const reservation = await reserveCheck(checks.db, {
    clock: checks.clock,
    key: null,
    row: {
      merchantId: payer.merchantId,
      sourceId: payer.sourceId,
      kind: 'charge',
      parentPk: null,
      amountCents: schedule.amount_cents + surchargeCents,
      accountSealed: checks.cipher.seal(account.accountNumber, 'card_number', payer.sourceId),
      last4: account.last4,
      requestJson: JSON.stringify({ ...storedRequest(request), surcharge_cents: surchargeCents }),
      customerPk: saved.customer_pk,
      paymentMethodPk: saved.pk,
      schedulePk: schedule.pk,
      accountName: account.name,
      routingNumber: account.routingNumber,
      accountType: account.accountTypeAsSent,
      secCode: account.secCode,
      network: network.name,
      retryAfterMs: checkRetryAfterMs(network),
    },
    scheduleRun: { schedulePk: schedule.pk, runDate },
  });
  if (reservation.kind === 'taken') return { kind: 'taken' };
  if (reservation.kind === 'refused') return { kind: 'unusable', why: 'its saved check is gone' };
  const outcome = await submitCheckEntry({ ...checks, network }, { row: reservation.row, direction: 'debit', account, replyJson: checkReplyJson });
  return { kind: 'charged', pk: outcome.row.pk };
}
