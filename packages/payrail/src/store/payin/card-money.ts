// Money of a card transaction between the merchant's available balance and
// its card payins, as the operations after a charge move it.
import { merchantAccount, type PostingKind } from '../../domain/ledger.ts';
import type { ChargeRow } from '../charges.ts';
import type { Tx } from '../db.ts';
import { post } from '../ledger.ts';

/**
 * Moves money between the merchant's available balance and its card payins
 * for transaction `charge`: to the merchant (a capture, a release) can never
 * be refused (card_payins has no floor); from the merchant (a void or refund
 * hold) is refused below the available balance's floor (minus the overdraft).
 *
 * HOT_ROWS_LAST: every card operation of a merchant moves money on the same
 * balance rows, and on PostgreSQL a transaction holds their locks from its
 * posting until COMMIT while its other statements make their round trips.
 * So an operation posts as its last statement (nothing it writes or answers
 * depends on a balance), and other operations wait for those rows as little
 * as possible.
 */
export async function moveCardMoney(
  tx: Tx,
  charge: Pick<ChargeRow, 'pk' | 'merchant_id'>,
  kind: PostingKind,
  toMerchant: boolean,
  amountCents: number,
  nowMs: number,
): Promise<'posted' | 'below_floor'> {
  const available = merchantAccount(charge.merchant_id, 'available');
  const cardPayins = merchantAccount(charge.merchant_id, 'card_payins');
  return post(tx, {
    kind,
    debitAccountId: toMerchant ? cardPayins : available,
    creditAccountId: toMerchant ? available : cardPayins,
    amountCents,
    merchantId: charge.merchant_id,
    refId: String(charge.pk),
    nowMs,
  });
}

/** A movement to the merchant, which nothing can refuse. */
export async function postToMerchant(tx: Tx, charge: ChargeRow, kind: PostingKind, amountCents: number, nowMs: number): Promise<void> {
  const posted = await moveCardMoney(tx, charge, kind, true, amountCents, nowMs);
  if (posted !== 'posted') throw new Error(`${kind} of ${charge.pk}: posting refused (${posted})`);
}
