// Which transfers a card payin pays for (docs/api-decisions.md section 12):
// a charge shows them in its `custom_fields` as
// {"transfers": [{"id": "1001", "amount": "25.00"}]}, oldest link first. A
// failed transfer gives its share back, so it is no longer listed. A charge
// funding nothing keeps the `{}` it was first answered with.
import { formatCents } from '../../domain/money.ts';
import type { FundedTransferRow } from '../../store/transfers.ts';

/** A charge lists at most this many of the transfers it funds. */
export const FUNDED_TRANSFERS_SHOWN_MAX = 100;

export function fundingCustomFields(funded: readonly FundedTransferRow[]): Record<string, unknown> {
  if (funded.length === 0) return {};
  return { transfers: funded.map((transfer) => ({ id: transfer.id, amount: formatCents(Number(transfer.amount_cents)) })) };
}
