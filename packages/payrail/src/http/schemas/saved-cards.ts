// Wire schemas of saved-card tokens (accept.blue's POST /saved-cards and
// PATCH /saved-cards/{cardRef}; docs/acceptblue-compatibility.md).
import { Type } from 'typebox';

const ExpiryYear = Type.Integer({ minimum: 1000, maximum: 9999, description: 'Card expiry year, four digits' });
const ExpiryMonth = Type.Integer({ minimum: 1, maximum: 12, description: 'Card expiry month, 1 to 12' });

export const SavedCardCreate = Type.Object(
  {
    card: Type.Optional(
      Type.String({ minLength: 1, maxLength: 32, description: 'Card number, digits only; with expiry_month and expiry_year; instead of source' }),
    ),
    source: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'A nonce (consumed; expiry required), pm-<payment method id> or ref-<reference number>; instead of card',
      }),
    ),
    expiry_month: Type.Optional(ExpiryMonth),
    expiry_year: Type.Optional(ExpiryYear),
  },
  { title: 'SavedCardCreateRequest', additionalProperties: false },
);

export const SavedCard = Type.Object(
  { cardRef: Type.String({ pattern: '^[A-Z]{2}[A-Z0-9]{14}$', description: 'The token: charge, verify or credit it as source tkn-<cardRef>' }) },
  { title: 'SavedCard' },
);

export const SavedCardParams = Type.Object({ cardRef: Type.String({ description: 'The token (card_ref)' }) });

export const SavedCardUpdate = Type.Object(
  { expiry_month: Type.Optional(ExpiryMonth), expiry_year: Type.Optional(ExpiryYear) },
  { title: 'SavedCardUpdateRequest', additionalProperties: false },
);

export const SavedCardExpiry = Type.Object({ expiry_month: Type.Integer(), expiry_year: Type.Integer(), cardRef: Type.String() }, { title: 'SavedCardExpiry' });
