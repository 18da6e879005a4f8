// Sandbox-only actions a receiver takes on the simulated network: accept a
// payment invitation, complete KYC. Each is one write: the simulator's
// receiver row and the transfers it releases change together. Production
// (or a sandbox wired to real connectors) refuses them.
import { STATE, SUBSTATE } from '../../domain/transfer-states.ts';
import { fail } from '../../errors.ts';
import { acceptInvitation as recordAcceptance, completeKyc } from '../../providers/sandbox/receivers.ts';
import type { Service } from '../../service.ts';
import { insertEvent, releaseInvitationWaits } from '../../store/transfers.ts';
import { parseAccount } from './kyc.ts';

export function sandboxNetworkEnabled(service: Service): boolean {
  return service.config.environment === 'sandbox' && service.config.providers.payoutNetwork === 'sandbox';
}

export function sandboxKycEnabled(service: Service): boolean {
  return service.config.environment === 'sandbox' && service.config.providers.kyc === 'sandbox';
}

/** Registers the receiver (verified) and lets every transfer waiting for them proceed. Returns how many did. */
export async function acceptInvitation(service: Service, account: string): Promise<{ released: number }> {
  if (!sandboxNetworkEnabled(service)) fail('sandbox_only');
  const phone = parseAccount(service, account);
  const nowMs = service.clock.nowMs();
  return service.db.write(async (tx) => {
    await recordAcceptance(tx, phone, nowMs);
    const released = await releaseInvitationWaits(tx, phone, nowMs);
    for (const pk of released) await insertEvent(tx, pk, STATE.new, SUBSTATE.ready, 'invitation accepted', nowMs);
    return { released: released.length };
  });
}

/** Completes the receiver's verification: kyc_verify true, money_limit 3000.00. */
export async function verifyKyc(service: Service, account: string): Promise<void> {
  if (!sandboxKycEnabled(service)) fail('sandbox_only');
  const phone = parseAccount(service, account);
  const nowMs = service.clock.nowMs();
  const outcome = await service.db.write((tx) => completeKyc(tx, phone, nowMs));
  if (outcome === 'not_registered') fail('account_not_found', `no receiver account for ${phone.slice(1)}; the receiver must accept a payment invitation first`);
}
