// A merchant's surcharge as the payin API shows it (GET and POST
// /api/v2/surcharge, accept.blue's shapes): per payment type, a percentage of
// the amount or a fixed amount in dollars; none reads as percent 0.

/** `value`: a percentage (3.5 is 3.5 %) when `type` is percent, dollars (1.5 is 1.50 USD) when currency. */
export interface Surcharge {
  readonly type: 'percent' | 'currency';
  readonly value: number;
}

/** GET /api/v2/surcharge. */
export interface SurchargeSettings {
  readonly card: Surcharge;
  readonly check: Surcharge;
}

/** POST /api/v2/surcharge: a source without its prefix (`123` for `pm-123`; a card number or its first digits for card). */
export interface SurchargeLookup {
  readonly source_type: 'card' | 'tkn' | 'pm' | 'ref';
  readonly source: string;
}

export interface SourceSurcharge {
  readonly surcharge: Surcharge;
  /** C (credit) for every card (the server has no BIN table), null for checks. */
  readonly bin_type: 'C' | 'D' | null;
  readonly payment_type: 'card' | 'check';
}
