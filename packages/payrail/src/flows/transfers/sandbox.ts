// Sandbox-only actions a receiver takes on the simulated network: accept a
// payment invitation, complete KYC. The connectors record the receiver's
// side (a real network learns it on its own pages); this flow then lets
// every transfer that waited for the receiver proceed, through the one
// place that changes transfer states. Accepting again is harmless and
// releases anything still waiting, so a retry completes an interrupted call.
// Production, or connectors without these capabilities, refuse them.
import { SUBSTATE } from '../../domain/transfer-states.ts';
import { fail } from '../../errors.ts';
import type { Service } from '../../service.ts';
import { changeFrom } from '../../store/transfers.ts';
import { releaseInvitationWaits } from '../../store/transfers/invitations.ts';
import { parseAccount } from './kyc.ts';
import { keptKycStatus, kycDepsOf } from './kyc-sessions.ts';
import { transitionsPreparer } from './transitions.ts';

/** Transfers released by one acceptance; a receiver with more waits accepts again. */
const RELEASED_PER_CALL_MAX = 500;

/** Registers the receiver (verified) and lets every transfer waiting for them proceed. Returns how many did. */
export async function acceptInvitation(service: Service, account: string): Promise<{ released: number }> {
  const network = service.providers.payoutNetwork;
  if (service.config.environment !== 'sandbox' || network.acceptInvitation === undefined) fail('sandbox_only');
  const phone = parseAccount(service, account);
  await network.acceptInvitation(phone);
  const nowMs = service.clock.nowMs();
  const released = await releaseInvitationWaits(service.db, {
    receiverPhone: phone,
    nowMs,
    limit: RELEASED_PER_CALL_MAX,
    change: (row) => ({ ...changeFrom(row), substate: SUBSTATE.ready, waiting_for: null, invitation_expires_at_ms: null, next_run_at_ms: nowMs }),
    note: 'invitation accepted',
    prepare: transitionsPreparer(service),
  });
  return { released };
}

/** Completes the receiver's verification: kyc_verify true, money_limit 3000.00. */
export async function verifyKyc(service: Service, account: string): Promise<void> {
  const kyc = service.providers.kyc;
  // A provider verifying in sessions is completed at its own pages, not here.
  if (service.config.environment !== 'sandbox' || kyc.kind === 'sessions' || kyc.completeVerification === undefined) fail('sandbox_only');
  const phone = parseAccount(service, account);
  if ((await kyc.completeVerification(phone)) === 'not_registered') {
    fail('account_not_found', `no receiver account for ${phone.slice(1)}; the receiver must accept a payment invitation first`);
  }
}

export interface SandboxReceiverView {
  readonly phone: string;
  readonly registered: boolean;
  readonly kycVerified: boolean;
  readonly moneyLimitCents: number;
}

/** What the sandbox receiver pages show, read through the connectors like any look-up. */
export async function sandboxReceiver(service: Service, account: string, page: 'kyc' | 'invitation'): Promise<SandboxReceiverView> {
  const kyc = service.providers.kyc;
  const capable =
    page === 'kyc' ? kyc.kind !== 'sessions' && kyc.completeVerification !== undefined : service.providers.payoutNetwork.acceptInvitation !== undefined;
  if (service.config.environment !== 'sandbox' || !capable) fail('sandbox_only');
  const phone = parseAccount(service, account);
  // With a provider verifying in sessions, the network says who is registered and Payrail's record how far they are verified.
  const status =
    kyc.kind === 'sessions'
      ? (await service.providers.payoutNetwork.lookupReceiver(phone)).registered
        ? await keptKycStatus(kycDepsOf(service), phone)
        : null
      : await kyc.lookup(phone);
  if (status === null) return { phone, registered: false, kycVerified: false, moneyLimitCents: 0 };
  return { phone, registered: true, kycVerified: status.verified, moneyLimitCents: status.moneyLimitCents };
}
