// Saved-card tokens (POST /api/v2/saved-cards, PATCH /api/v2/saved-cards/{cardRef}):
// a card kept under a token without a charge; charge, verify or credit it
// with `source: "tkn-<cardRef>"`. A charge or verify with `save_card: true`
// answers such a token too, as `card_ref`, once approved.

/** Body of POST /api/v2/saved-cards: a card (with its expiry), or a nonce, `pm-` or `ref-` source. */
export interface SavedCardInput {
  /** The card number, digits only; with expiry_month and expiry_year. */
  card?: string;
  /** A nonce (consumed; expiry required), `pm-<payment method id>` or `ref-<reference number>`. */
  source?: string;
  expiry_month?: number;
  expiry_year?: number;
}

/** The answer of POST /api/v2/saved-cards (camelCase, as accept.blue answers it). */
export interface SavedCard {
  cardRef: string;
}

/** Body of PATCH /api/v2/saved-cards/{cardRef}. */
export interface SavedCardChanges {
  expiry_month?: number;
  expiry_year?: number;
}

/** The answer of PATCH /api/v2/saved-cards/{cardRef}. */
export interface SavedCardExpiry {
  expiry_month: number;
  expiry_year: number;
  cardRef: string;
}

export function readSavedCard(body: Record<string, unknown>): SavedCard {
  return { cardRef: String(body.cardRef) };
}

export function readSavedCardExpiry(body: Record<string, unknown>): SavedCardExpiry {
  return { expiry_month: Number(body.expiry_month), expiry_year: Number(body.expiry_year), cardRef: String(body.cardRef) };
}

/** The source a token is charged with. */
export function tokenSource(cardRef: string): string {
  return `tkn-${cardRef}`;
}
