// The KYC connector: how far a receiver is verified and how much they may
// receive in one transfer. Identity verification itself happens at the
// provider; Payrail only reads the result and hands out the provider's link.

export interface KycStatus {
  readonly verified: boolean;
  /** Most a receiver may receive in one transfer, in USD cents; 0 means nothing. */
  readonly moneyLimitCents: number;
  /** Where the receiver completes verification; "" when fully verified. */
  readonly kycUrl: string;
}

export interface KycProvider {
  /** The receiver's verification status, or null when the provider has no such account. */
  lookup(phoneE164: string): Promise<KycStatus | null>;
}
