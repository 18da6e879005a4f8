// The receiver side of validation: is the number on the payout network, and
// may it receive this much (its KYC limit)? Both answers come from providers
// (lookups.ts: service_unavailable when one does not answer), so this runs
// before, never inside, a database transaction.
import type { Corridor } from '../../domain/corridors.ts';
import { formatCents } from '../../domain/money.ts';
import { fail } from '../../errors.ts';
import type { Providers } from '../../providers/index.ts';
import { receiverKyc, receiverOnNetwork } from './lookups.ts';

export type ReceiverStatus = 'registered' | 'unregistered';

/**
 * Returns whether the receiver is registered; raises kyc_not_verified when
 * the receiver's per-transfer limit is below the amount. A receiver new to
 * the network has no limit yet: they get an invitation, and once they accept
 * it the transfer goes out without another look at their limit. So it is
 * held here to the limit an accepted invitation gives.
 */
export async function checkReceiver(providers: Providers, corridor: Corridor, receiverPhone: string, amountCents: number): Promise<ReceiverStatus> {
  const { registered } = await receiverOnNetwork(providers, receiverPhone, corridor);
  if (!registered) {
    const limitCents = providers.kyc.invitedLimitCents;
    if (amountCents > limitCents) {
      fail(
        'kyc_not_verified',
        `receiver_phone is new to the network and can receive at most ${formatCents(limitCents)} per transfer once they accept the payment invitation`,
      );
    }
    return 'unregistered';
  }
  const kyc = await receiverKyc(providers, receiverPhone);
  const limitCents = kyc?.moneyLimitCents ?? 0;
  if (amountCents > limitCents) {
    if (limitCents === 0) fail('kyc_not_verified', 'receiver_phone cannot receive transfers until the receiver completes KYC verification');
    const more = kyc?.verified === true ? '' : '; the receiver must complete KYC verification to receive more';
    fail('kyc_not_verified', `receiver_phone can receive at most ${formatCents(limitCents)} per transfer${more}`);
  }
  return 'registered';
}
