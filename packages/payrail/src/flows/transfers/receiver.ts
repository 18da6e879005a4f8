// The receiver side of validation: is the number on the payout network, and
// may it receive this much (its KYC limit)? Both answers come from providers
// (lookups.ts: service_unavailable when one does not answer), so this runs
// before, never inside, a database transaction.
import type { Corridor } from '../../domain/corridors.ts';
import { formatCents } from '../../domain/money.ts';
import { fail } from '../../errors.ts';
import type { KycStatus } from '../../providers/kyc.ts';
import { type KycDeps, keptKycStatus } from './kyc-sessions.ts';
import { receiverKyc, receiverOnNetwork } from './lookups.ts';
import { payoutNetworkOf } from './networks.ts';

export type ReceiverStatus = 'registered' | 'unregistered';

/**
 * Returns whether the receiver is registered; raises kyc_not_verified when
 * the receiver's per-transfer limit is below the amount. A receiver new to
 * the network has no limit yet: they get an invitation, and once they accept
 * it the transfer goes out without another look at their limit. So it is
 * held here to the limit an accepted invitation gives. With a provider that
 * verifies in sessions, that is Payrail's unverified limit (the receiver has
 * no decision yet), and a registered receiver's limit is what Payrail kept of
 * their verification: check and execute never start a session.
 */
export async function checkReceiver(deps: KycDeps, corridor: Corridor, receiverPhone: string, amountCents: number): Promise<ReceiverStatus> {
  const providers = deps.providers;
  const { registered } = await receiverOnNetwork(providers, receiverPhone, corridor);
  if (!registered) {
    if (payoutNetworkOf(providers, corridor).sendsInvitations === false) {
      fail('invalid_phone_number', `receiver_phone has no wallet on the payout network of service ${corridor.service}, which cannot invite new receivers`);
    }
    const limitCents = providers.kyc.kind === 'sessions' ? deps.kycLimits.unverifiedCents : providers.kyc.invitedLimitCents;
    if (amountCents > limitCents) {
      fail(
        'kyc_not_verified',
        `receiver_phone is new to the network and can receive at most ${formatCents(limitCents)} per transfer once they accept the payment invitation`,
      );
    }
    return 'unregistered';
  }
  const kyc: KycStatus | null = providers.kyc.kind === 'sessions' ? await keptKycStatus(deps, receiverPhone) : await receiverKyc(providers.kyc, receiverPhone);
  const limitCents = kyc?.moneyLimitCents ?? 0;
  if (amountCents > limitCents) {
    if (limitCents === 0) fail('kyc_not_verified', 'receiver_phone cannot receive transfers until the receiver completes KYC verification');
    const more = kyc?.verified === true ? '' : '; the receiver must complete KYC verification to receive more';
    fail('kyc_not_verified', `receiver_phone can receive at most ${formatCents(limitCents)} per transfer${more}`);
  }
  return 'registered';
}
