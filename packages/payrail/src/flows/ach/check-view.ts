// How a check transaction reads, in both wire dialects (behaviour.md section
// 17; accept.blue's CheckTransaction): `check_details` in place of a card's
// card_details, the status its ACH entry shows (domain/ach.ts
// ACH_STATUS_NAMES, never the charge row's status), no batch, and the
// settlement date the entry recorded. Pure. The account number is never
// here: only its last four digits (the charge row's last4).
import { ACH_STATUS_NAMES } from '../../domain/ach.ts';
import { utcDate } from '../../domain/card-lifecycle.ts';
import type { CheckFacts } from '../../store/transactions.ts';

/** The row's check facts when it is a check, else null (a card). */
export function checkOf(row: { readonly check?: CheckFacts | null | undefined }): CheckFacts | null {
  return row.check ?? null;
}

/** accept.blue's check_details (both dialects show the same object). */
export function checkDetailsOf(check: CheckFacts, last4: string): Record<string, unknown> {
  return {
    name: check.account_name,
    routing_number: check.routing_number,
    account_number_last4: last4,
    // As the request wrote it: integrations compare it case-sensitively.
    account_type: check.account_type,
    sec_code: check.sec_code,
    returned_at: check.returned_at_ms === null ? null : utcDate(check.returned_at_ms),
    returned_code: check.return_code,
    returned_reason: check.return_reason,
  };
}

/** The status a check shows: its entry's. */
export function checkStatusOf(check: CheckFacts): string {
  return ACH_STATUS_NAMES[check.state];
}

/** A check's status_details error: a returned check's code and reason (WooCommerce's hourly job reads error_message), else the row's. */
export function checkErrorOf(
  check: CheckFacts,
  row: { error_code: string | null; error_message: string | null },
): { code: string | null; message: string | null } {
  if (check.state === 'returned') return { code: check.return_code, message: check.return_reason };
  return { code: row.error_code, message: row.error_message };
}

/** When the check settled (YYYY-MM-DD, UTC), or null. */
export function checkSettledDateOf(check: CheckFacts): string | null {
  return check.settled_at_ms === null ? null : utcDate(check.settled_at_ms);
}
