// How long a charge keeps the sealed copy of its card that later
// `ref-<reference number>` charges, saved cards and payment methods use
// (docs/api-decisions.md section 15). A card number is kept only where the
// merchant asked for card-on-file use: with `save_card`, for a saved-card
// token's charge, or when the merchant keeps reference cards (an operator
// setting, `payrail merchant reference-cards`). Any other nonce charge keeps
// it only for the short window the shop plugins need to save the card of a
// charge they have just made (Vendure's Google Pay flow creates a payment
// method from `ref-` at once); a void, an expired authorization, a decline or
// a failure erases it at once (store/charges.ts).
import { DAY_MS } from './clock.ts';

/** A kept card's time when the merchant asked to keep it: 13 months, so an annual renewal made by reference still finds its card. */
export const REFERENCE_CARD_RETENTION_MS = 396 * DAY_MS;

/** A kept card's time when nobody asked to keep it: enough for a plugin's `ref-` right after the charge (and a day's retries), no more. */
export const REFERENCE_CARD_BRIEF_MS = DAY_MS;

/** Why a charge keeps its card, if it does. */
export interface ReferenceCardAsk {
  /** The source's card is reached otherwise (a saved payment method): no copy. */
  readonly keepsCopy: boolean;
  /** `save_card: true`, or a saved-card token charged: the merchant keeps this card on file. */
  readonly cardOnFile: boolean;
  /** The merchant's setting: every approved charge's card stays usable by `ref-` for the whole retention. */
  readonly merchantKeepsReferenceCards: boolean;
}

/** Until when the charge made at `nowMs` keeps its copy (erased by the worker then), or null for none. */
export function referenceCardUntilMs(ask: ReferenceCardAsk, nowMs: number): number | null {
  if (!ask.keepsCopy) return null;
  const longKept = ask.cardOnFile || ask.merchantKeepsReferenceCards;
  return nowMs + (longKept ? REFERENCE_CARD_RETENTION_MS : REFERENCE_CARD_BRIEF_MS);
}
