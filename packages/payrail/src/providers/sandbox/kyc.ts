// Sandbox KYC provider: the catalogue's verification levels, and a kyc_url
// pointing at the sandbox page where a receiver completes verification.
import type { Clock } from '../../domain/clock.ts';
import type { KycProvider, KycStatus } from '../kyc.ts';
import { sandboxKycUrl } from './links.ts';
import { VERIFIED_LIMIT_CENTS, type SandboxReceivers } from './receivers.ts';

export class SandboxKyc implements KycProvider {
  /** Accepting a sandbox invitation makes the receiver verified (docs/api-decisions.md section 6). */
  readonly invitedLimitCents = VERIFIED_LIMIT_CENTS;

  constructor(
    private readonly receivers: SandboxReceivers,
    private readonly clock: Clock,
    private readonly publicUrl: string,
  ) {}

  async lookup(phoneE164: string): Promise<KycStatus | null> {
    const receiver = await this.receivers.read(phoneE164);
    if (!receiver.registered) return null;
    return {
      verified: receiver.kycVerified,
      moneyLimitCents: receiver.moneyLimitCents,
      kycUrl: receiver.kycVerified ? '' : sandboxKycUrl(this.publicUrl, phoneE164),
    };
  }

  completeVerification(phoneE164: string): Promise<'verified' | 'not_registered'> {
    return this.receivers.completeKyc(phoneE164, this.clock.nowMs());
  }
}
