// Wire schemas of accept.blue's surcharge endpoints on the payin API
// (GET and POST /api/v2/surcharge; docs/acceptblue-compatibility.md). The same
// shapes in both wire dialects: Payrail's own API has no other.
import { Type, type Static } from 'typebox';

export const Surcharge = Type.Object(
  {
    type: Type.Union([Type.Literal('percent'), Type.Literal('currency')]),
    value: Type.Number({
      minimum: 0,
      description: 'A percentage of the amount (3.5 is 3.5 %, up to 3 decimals) or a fixed amount in dollars; none is {type: "percent", value: 0}',
    }),
  },
  { title: 'Surcharge' },
);

export const SurchargeSettingsResponse = Type.Object({ card: Surcharge, check: Surcharge }, { title: 'SurchargeSettingsResponse' });

export const SourceSurchargeRequest = Type.Object(
  {
    source_type: Type.Union([Type.Literal('card'), Type.Literal('tkn'), Type.Literal('pm'), Type.Literal('ref')], {
      description: 'card: a card number or its first digits; tkn: a card reference; pm: a payment method id; ref: a reference number',
    }),
    source: Type.String({ pattern: '^[A-Za-z0-9]+$', minLength: 1, maxLength: 16, description: 'The source without its prefix (123 for pm-123)' }),
  },
  { title: 'SourceSurchargeRequest', additionalProperties: false },
);
export type SourceSurchargeRequest = Static<typeof SourceSurchargeRequest>;

export const SourceSurchargeResponse = Type.Object(
  {
    surcharge: Surcharge,
    bin_type: Type.Union([Type.Literal('C'), Type.Literal('D'), Type.Null()], {
      description: 'C (credit) for every card: Payrail has no BIN table; null for checks',
    }),
    payment_type: Type.Union([Type.Literal('card'), Type.Literal('check')]),
  },
  { title: 'SourceSurchargeResponse' },
);
