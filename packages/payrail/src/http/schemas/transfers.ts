// Wire schemas of the transfer API, written once: they validate requests
// (types only, no coercion), type the handlers, serialise responses, and
// feed the OpenAPI document. docs/interface-spec.md sections 2.3 to 2.8 and 7.1.
import { Type } from 'typebox';
import { TRANSFER_ID_LENGTH_MAX } from '../../domain/references.ts';

export const Attribute = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64 }),
    value: Type.String({ maxLength: 256 }),
  },
  { title: 'TransferAttribute', additionalProperties: false },
);

/** Body of check transfer and execute transfer (docs/interface-spec.md section 2.3). */
export const TransferRequest = Type.Object(
  {
    id: Type.String({ maxLength: TRANSFER_ID_LENGTH_MAX, description: 'Unique transfer id (digits only); the same id is used for check and execute' }),
    sender_phone: Type.String({ maxLength: 32, description: 'Sender phone: E.164 with or without +, or a US national number' }),
    receiver_phone: Type.String({ maxLength: 32, description: 'Receiver phone: E.164 with or without +, or a national number of receiver_country' }),
    amount: Type.String({ maxLength: 20, description: 'Amount in US dollars as a decimal string, at most 2 decimals' }),
    service: Type.String({ maxLength: 10, description: 'Corridor id' }),
    receiver_country: Type.String({ maxLength: 2, description: 'ISO 3166-1 alpha-2 country of the receiver' }),
    receiver_currency: Type.String({ maxLength: 3, description: 'ISO 4217 currency of the receiver' }),
    attribute: Type.Array(Attribute, {
      maxItems: 32,
      description: 'Corridor-specific attributes; gatewayId (or its other name approvelyId) links a card payin',
    }),
  },
  { title: 'TransferRequest', additionalProperties: false },
);

const SuccessEnvelope = {
  success: Type.Literal(true),
  error: Type.Literal(''),
};

/** Check transfer response (docs/interface-spec.md section 2.6): fx_rate, receivedAmount, receiverStatus. */
export const CheckResponse = Type.Object(
  {
    ...SuccessEnvelope,
    attribute: Type.Array(Attribute),
  },
  { title: 'CheckTransferResponse' },
);

/** payment_response of execute (docs/interface-spec.md section 2.5): every field a string. */
export const PaymentResponse = Type.Object(
  {
    id: Type.String(),
    payment_id: Type.Union([Type.String(), Type.Null()]),
    state: Type.String(),
    substate: Type.String(),
    code: Type.String(),
  },
  { title: 'PaymentResponse' },
);

export const ExecuteResponse = Type.Object(
  {
    ...SuccessEnvelope,
    payment_response: PaymentResponse,
  },
  { title: 'ExecuteTransferResponse' },
);

/** Status result (docs/interface-spec.md section 2.7): state, substate, final and code are integers here. */
export const StatusResult = Type.Object(
  {
    id: Type.String(),
    state: Type.Integer(),
    substate: Type.Integer(),
    final: Type.Integer({ minimum: 0, maximum: 1 }),
    code: Type.Integer(),
    attribute: Type.Array(Attribute),
    server_time: Type.Union([Type.String(), Type.Null()]),
    trans: Type.Union([Type.String(), Type.Null()]),
    sum_prov: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'TransferStatus' },
);

/** A known transfer's status, or (docs/interface-spec.md section 2.7) the execute shape with state "-2" for an unknown id. */
export const StatusResponse = Type.Union([Type.Object({ ...SuccessEnvelope, status: Type.Object({ result: StatusResult }) }), ExecuteResponse], {
  title: 'TransferStatusResponse',
});

export const StatusParams = Type.Object({ id: Type.String({ description: 'Transfer id' }) });

/** KYC result (docs/interface-spec.md section 2.8), at the top level beside the envelope. */
export const KycResponse = Type.Object(
  {
    ...SuccessEnvelope,
    kyc_verify: Type.Boolean(),
    money_limit: Type.String({ description: 'Most the receiver may receive per transfer, in dollars; "0" means nothing' }),
    kyc_url: Type.String({ description: 'Where the receiver completes verification; "" when verified' }),
  },
  { title: 'ReceiverKycResponse' },
);

export const AccountParams = Type.Object({ account: Type.String({ description: 'Receiver phone in E.164 digits without +' }) });

/** The sandbox-only calls answer with the bare envelope. */
export const SandboxActionResponse = Type.Object({ ...SuccessEnvelope }, { title: 'SandboxActionResponse' });

/** GET /api/transfers query (docs/api-decisions.md section 14). Query values are text: the flow reads their numbers and times. */
export const TransferListQuery = Type.Object(
  {
    state: Type.Optional(Type.String({ enum: ['0', '40', '60', '80'], description: 'Only transfers in this state' })),
    created_from: Type.Optional(Type.String({ maxLength: 35, description: 'Only transfers created at or after this ISO 8601 timestamp (with a zone)' })),
    created_to: Type.Optional(Type.String({ maxLength: 35, description: 'Only transfers created at or before this ISO 8601 timestamp (with a zone)' })),
    limit: Type.Optional(Type.String({ maxLength: 8, description: 'Transfers per page, an integer from 1 to 100 (default 10)' })),
    starting_after: Type.Optional(
      Type.String({ maxLength: TRANSFER_ID_LENGTH_MAX, description: 'The id of the last transfer of the previous page; this page starts after it' }),
    ),
    ending_before: Type.Optional(
      Type.String({
        maxLength: TRANSFER_ID_LENGTH_MAX,
        description: 'The id of the first transfer of a page: the page before it, the newer transfers nearest to it; not with starting_after',
      }),
    ),
  },
  { additionalProperties: false },
);

/** One transfer of the list: the status result plus what the merchant sent and when. */
export const TransferListItem = Type.Object(
  {
    ...StatusResult.properties,
    amount: Type.String({ description: 'Amount in US dollars as a decimal string' }),
    receiver_phone: Type.String({ description: 'Receiver phone, E.164' }),
    service: Type.String({ description: 'Corridor id' }),
    receiver_country: Type.String(),
    receiver_currency: Type.String(),
    created_at: Type.String({ description: 'Creation time, ISO 8601 (UTC)' }),
  },
  { title: 'TransferListItem' },
);

export const TransferListResponse = Type.Object(
  {
    ...SuccessEnvelope,
    transfers: Type.Array(TransferListItem, { description: 'Newest first' }),
    has_more: Type.Boolean({
      description: 'Another page follows in the direction paged: older (starting_after = the last id of this page) or, with ending_before, newer',
    }),
  },
  { title: 'TransferListResponse' },
);
