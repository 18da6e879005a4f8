// Sandbox KYC provider: the catalogue's verification levels, and a kyc_url
// pointing at the sandbox page where a receiver completes verification.
import type { Db } from '../../store/db.ts';
import type { KycProvider, KycStatus } from '../kyc.ts';
import { sandboxKycUrl } from './links.ts';
import { readReceiver, VERIFIED_LIMIT_CENTS } from './receivers.ts';

export class SandboxKyc implements KycProvider {
  /** Accepting a sandbox invitation makes the receiver verified (behaviour.md s.6). */
  readonly invitedLimitCents = VERIFIED_LIMIT_CENTS;

  constructor(
    private readonly db: Db,
    private readonly publicUrl: string,
  ) {}

  async lookup(phoneE164: string): Promise<KycStatus | null> {
    const receiver = await readReceiver(this.db, phoneE164);
    if (!receiver.registered) return null;
    return {
      verified: receiver.kycVerified,
      moneyLimitCents: receiver.moneyLimitCents,
      kycUrl: receiver.kycVerified ? '' : sandboxKycUrl(this.publicUrl, phoneE164),
    };
  }
}
