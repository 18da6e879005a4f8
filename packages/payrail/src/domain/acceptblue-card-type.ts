// Card type names as accept.blue spells them (docs/acceptblue-compatibility.md):
// shop plugins compare them as exact strings (Pinelab's allow-list needs
// "MasterCard", "Amex"). Payrail's own names (domain/cards.ts) stay in the
// spec dialect.
import type { CardType } from './cards.ts';

const ACCEPTBLUE_CARD_TYPES: Readonly<Record<CardType, string>> = {
  Visa: 'Visa',
  MasterCard: 'MasterCard',
  'American Express': 'Amex',
  Discover: 'Discover',
  JCB: 'JCB',
  'Diners Club': 'Diners',
  Unknown: 'Unknown',
};

/** accept.blue's name of a card type; a name Payrail does not know is shown as stored. */
export function acceptBlueCardType(cardType: string): string {
  return ACCEPTBLUE_CARD_TYPES[cardType as CardType] ?? cardType;
}
