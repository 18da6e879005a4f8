// An unmatched check credit (accept.blue's CheckCredit, and a SourceCredit
// of a saved check method): money paid into a bank account no charge names,
// taken from the merchant's available balance like a card credit, and
// refused like one when balance + overdraft does not cover it. A credit
// entry ('refund' row without a parent): reserved with its hold, submitted
// outside any transaction, recorded by the entry transitions.
import type { AchNetwork } from '../../providers/ach-network.ts';
import { reserveCheck } from '../../store/ach/check-reservation.ts';
import type { KeyedRequest, Reply } from '../common/idempotency-replay.ts';
import type { CheckAccount } from './check-account.ts';
import { type CheckDeps, checkRetryAfterMs } from './check-charge.ts';
import { failReservation, keyClaimOf, keyTaken, operationReplyJson, replayCredit } from './check-operations.ts';
import { submitCheckEntry } from './check-submit.ts';

/** What a check credit keeps of its request (never the account: that is sealed, and in its entry). */
export interface CheckCreditInput {
  readonly account: CheckAccount;
  readonly amountCents: number;
  readonly requestJson: string;
  readonly customerPk: number | null;
  readonly idem: KeyedRequest | null;
}

export async function creditCheck(
  deps: CheckDeps & { readonly network: AchNetwork },
  caller: { merchantId: string; sourceId: string },
  input: CheckCreditInput,
): Promise<Reply> {
  if (await keyTaken(deps, caller, input.idem)) return replayCredit(deps, caller, input.idem!);
  const { account } = input;
  const reservation = await reserveCheck(deps.db, {
    clock: deps.clock,
    key: keyClaimOf(caller, input.idem),
    row: {
      merchantId: caller.merchantId,
      sourceId: caller.sourceId,
      kind: 'refund',
      parentPk: null,
      amountCents: input.amountCents,
      accountSealed: deps.cipher.seal(account.accountNumber, 'card_number', caller.sourceId),
      last4: account.last4,
      requestJson: input.requestJson,
      customerPk: input.customerPk ?? account.method?.customerPk ?? null,
      paymentMethodPk: account.method?.pk ?? null,
      accountName: account.name,
      routingNumber: account.routingNumber,
      accountType: account.accountTypeAsSent,
      secCode: account.secCode,
      network: deps.network.name,
      retryAfterMs: checkRetryAfterMs(deps.network),
    },
  });
  if (reservation.kind === 'taken') return replayCredit(deps, caller, input.idem!);
  if (reservation.kind === 'refused') return failReservation(reservation, 0, input.amountCents, 'credit');
  const outcome = await submitCheckEntry(deps, { row: reservation.row, direction: 'credit', account, replyJson: operationReplyJson });
  return { statusCode: 200, json: operationReplyJson(outcome.row) };
}
