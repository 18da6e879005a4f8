// Wire schemas of the card payin API (docs/interface-spec.md sections 2.1 and 2.2; docs/api-decisions.md section 8).
// Requests are validated against them without coercion; the reply schemas
// document the three shapes (the routes send replies as ready JSON text, so
// a stored idempotent reply is byte-for-byte what the first caller got).
// Unknown request fields are refused with the field named, so a misspelt
// optional field is reported instead of silently dropped.
import { Type, type Static } from 'typebox';

const text = (maxLength: number, minLength = 1) => Type.String({ minLength, maxLength });
const optionalText = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
const nullableText = () => Type.Union([Type.String(), Type.Null()]);

/** A card expiry year has four digits (docs/interface-spec.md section 2.1). */
const ExpiryYear = Type.Integer({ minimum: 1000, maximum: 9999, description: 'Card expiry year, four digits' });
const ExpiryMonth = Type.Integer({ minimum: 1, maximum: 12, description: 'Card expiry month, 1 to 12' });

export const TokenRequest = Type.Object(
  {
    card_number: Type.String({ minLength: 1, maxLength: 32, description: 'Card number, digits only' }),
    expiry_month: ExpiryMonth,
    expiry_year: ExpiryYear,
    cvv2: Type.String({ minLength: 1, maxLength: 8, description: 'Security code: 3 digits, 4 for American Express' }),
  },
  { title: 'CardTokenRequest', additionalProperties: false },
);
export type TokenRequest = Static<typeof TokenRequest>;

export const TokenResponse = Type.Object(
  {
    nonce: Type.String({ description: 'Single-use token for one charge, valid 15 minutes; starts with nonce-' }),
    expires_at: Type.String({ description: 'ISO 8601 time after which the nonce is refused' }),
    card_type: Type.String(),
    last_4: Type.String(),
  },
  { title: 'CardToken' },
);

export const BillingInfo = Type.Object(
  {
    first_name: text(100),
    last_name: text(100),
    street: text(200),
    street2: optionalText(200),
    city: text(100),
    state: text(64),
    zip: text(20),
    country: text(64),
    phone: optionalText(32),
  },
  { title: 'BillingInfo', additionalProperties: false },
);

export const TransactionDetails = Type.Object(
  {
    description: optionalText(255),
    clerk: optionalText(255),
    terminal: optionalText(255),
    client_ip: optionalText(45),
    signature: optionalText(8192),
    invoice_number: optionalText(255),
    po_number: optionalText(255),
    order_number: optionalText(255),
  },
  { title: 'TransactionDetails', additionalProperties: false },
);

export const ChargeRequest = Type.Object(
  {
    amount: Type.Number({ description: 'Amount in dollars, at most 2 decimals, 0.50 to 100000.00' }),
    source: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Nonce from tokenization, pm-<payment method id> (a saved card) or ref-<reference number> (the card of an earlier approved charge)',
    }),
    expiry_month: Type.Optional({ ...ExpiryMonth, description: 'Card expiry month, 1 to 12; required with a nonce, else taken from the stored card' }),
    expiry_year: Type.Optional({ ...ExpiryYear, description: 'Card expiry year; required with a nonce, else taken from the stored card' }),
    billing_info: Type.Optional(BillingInfo),
    transaction_details: Type.Optional(TransactionDetails),
    capture: Type.Optional(
      Type.Boolean({ description: 'false authorizes only: nothing is credited until POST /api/v2/transactions/capture; authorizations expire after 7 days' }),
    ),
  },
  { title: 'ChargeRequest', additionalProperties: false },
);
export type ChargeRequest = Static<typeof ChargeRequest>;

export const ChargeHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ description: 'Retry-safe key: the same key and body replay the first reply for 24 hours' })),
});

export const TransactionParams = Type.Object({ id: Type.String({ description: 'The reference number' }) });

/** Shape C: a rejected request. */
export const ShapeC = Type.Object({ error: Type.Object({ code: Type.String(), message: Type.String() }) }, { title: 'PayinError' });

/** A rejected request in the accept.blue dialect: accept.blue's BaseResponse with status Error (docs/acceptblue-compatibility.md). */
export const AcceptBlueRefusal = Type.Object(
  {
    version: Type.String(),
    status: Type.Literal('Error'),
    status_code: Type.Literal('E'),
    error_message: Type.String(),
    error_code: Type.String({ description: 'The error catalogue code' }),
    error_details: Type.Union([Type.Record(Type.String(), Type.Array(Type.String())), Type.Null()], {
      description: 'Each refused request field (dotted path) with its messages; null when the refusal is not about a field',
    }),
  },
  { title: 'AcceptBlueError' },
);

/**
 * A rejected payin request: shape C in the spec dialect, accept.blue's body
 * in the accept.blue dialect, and both at once when the caller's dialect is
 * not known (its credentials were refused). Listed most members first: an
 * answer is written with the first member it matches.
 */
export const PayinRefusal = Type.Union(
  [Type.Object({ ...ShapeC.properties, ...AcceptBlueRefusal.properties }, { title: 'PayinErrorEitherDialect' }), AcceptBlueRefusal, ShapeC],
  {
    title: 'PayinRefusal',
  },
);

/** The refusals every payin route may answer. */
export const PAYIN_REFUSALS = {
  400: PayinRefusal,
  401: PayinRefusal,
  403: PayinRefusal,
  404: PayinRefusal,
  409: PayinRefusal,
  415: PayinRefusal,
  429: PayinRefusal,
  500: PayinRefusal,
};

const NullableAddress = Type.Object({
  first_name: nullableText(),
  last_name: nullableText(),
  street: nullableText(),
  street2: nullableText(),
  city: nullableText(),
  state: nullableText(),
  zip: nullableText(),
  country: nullableText(),
  phone: nullableText(),
});

/** Shape A: an approved (or pending) charge. */
export const ShapeA = Type.Object(
  {
    status: Type.String({ description: 'Approved or Pending' }),
    status_code: Type.String({ description: 'A (approved) or P (pending)' }),
    reference_number: Type.Integer({ description: 'Equal to transaction.id; what a transfer names in gatewayId' }),
    auth_code: Type.String(),
    auth_amount: Type.Number(),
    card_type: Type.String(),
    last_4: Type.String(),
    avs_result: Type.String(),
    avs_result_code: Type.String(),
    cvv2_result: Type.String(),
    cvv2_result_code: Type.String(),
    version: Type.String(),
    transaction: Type.Object({
      id: Type.Integer(),
      created_at: Type.String(),
      status_details: Type.Object({ status: Type.String({ description: 'approved (authorized), captured, pending, settled, voided, expired' }) }),
      amount_details: Type.Object({
        amount: Type.Number(),
        subtotal: Type.Number(),
        tax: Type.Number(),
        tax_percent: Type.Number(),
        shipping: Type.Number(),
        discount: Type.Number(),
        tip: Type.Number(),
        surcharge: Type.Number(),
        original_requested_amount: Type.Number(),
        original_authorized_amount: Type.Number(),
      }),
      card_details: Type.Object({
        card_type: Type.String(),
        last4: Type.String(),
        bin: Type.String(),
        auth_code: Type.String(),
        avs_result: Type.String(),
        avs_result_code: Type.String(),
        avs_street: Type.String(),
        avs_zip: Type.String(),
        cvv_result: Type.String(),
        cvv_result_code: Type.String(),
        cavv_result: Type.String(),
        cavv_result_code: nullableText(),
        expiry_month: Type.Integer(),
        expiry_year: Type.Integer(),
        bin_details: Type.Object({ type: Type.String() }),
        name: nullableText(),
      }),
      billing_info: Type.Object({
        first_name: Type.String(),
        last_name: Type.String(),
        street: Type.String(),
        street2: Type.String(),
        city: Type.String(),
        state: Type.String(),
        zip: Type.String(),
        country: Type.String(),
        phone: Type.String(),
      }),
      shipping_info: NullableAddress,
      transaction_details: Type.Object({
        type: Type.String(),
        source: Type.String(),
        batch_id: Type.Integer(),
        description: nullableText(),
        order_number: nullableText(),
        invoice_number: nullableText(),
        po_number: nullableText(),
        reference_number: nullableText(),
        clerk: nullableText(),
        terminal: nullableText(),
        client_ip: nullableText(),
        schedule_id: nullableText(),
      }),
      customer: Type.Object({ customer_id: nullableText(), identifier: nullableText(), email: nullableText(), fax: nullableText() }),
      custom_fields: Type.Object({}),
      settled_date: nullableText(),
    }),
  },
  { title: 'Transaction' },
);

/** Shape B: a declined or failed charge. */
export const ShapeB = Type.Object(
  {
    id: Type.String({ description: 'The reference number as a string of digits' }),
    status: Type.String({ description: 'declined or failed' }),
    amount: Type.Number(),
    currency: Type.String(),
    error: Type.Object({ code: Type.String(), message: Type.String() }),
    card: Type.Object({ last_four: Type.String(), card_type: Type.String() }),
    created_at: Type.String(),
  },
  { title: 'DeclinedTransaction' },
);

export const ChargeResponse = Type.Union([ShapeA, ShapeB], { title: 'TransactionResult' });

// The card transaction lifecycle (docs/api-decisions.md sections 10 and 14) --------

// The operations after a charge (capture, void, refund, reversal, adjust, credit, queue) have their schemas in payin-operations.ts.

/** Verify: the charge body without amount (and without capture). */
export const VerifyRequest = Type.Object(
  {
    source: Type.String({ minLength: 1, maxLength: 100, description: 'Nonce from tokenization' }),
    expiry_month: ExpiryMonth,
    expiry_year: ExpiryYear,
    billing_info: BillingInfo,
    transaction_details: Type.Optional(TransactionDetails),
  },
  { title: 'VerifyRequest', additionalProperties: false },
);
export type VerifyRequest = Static<typeof VerifyRequest>;

const queryText = (description: string) => Type.Optional(Type.String({ maxLength: 64, description }));

export const TransactionListQuery = Type.Object(
  {
    status: queryText('approved, captured, pending, settled, voided, expired, declined or error'),
    type: queryText('charge, refund or verify'),
    date_from: queryText('Created on or after: YYYY-MM-DD (UTC) or an ISO 8601 timestamp'),
    date_to: queryText('Created on or before: YYYY-MM-DD (UTC, the whole day) or an ISO 8601 timestamp'),
    created_from: queryText('Created at or after this ISO 8601 timestamp'),
    created_to: queryText('Created at or before this ISO 8601 timestamp'),
    limit: queryText('1 to 100, default 10'),
    offset: queryText('Transactions to skip, default 0'),
  },
  { additionalProperties: false },
);

export const PageQuery = Type.Object(
  { limit: queryText('1 to 100, default 10'), offset: queryText('Items to skip, default 0') },
  { additionalProperties: false },
);

export const TransactionList = Type.Array(ChargeResponse, { description: 'Newest first; each item as GET /api/v2/transactions/{id} shows it' });

export const BatchParams = Type.Object({ id: Type.String({ description: 'The batch id' }) });

export const Batch = Type.Object(
  {
    id: Type.Integer(),
    status: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
    opened_at: Type.String(),
    closed_at: Type.Union([Type.String(), Type.Null()]),
    transaction_count: Type.Integer(),
    sales_count: Type.Integer(),
    sales_amount: Type.Number(),
    refunds_count: Type.Integer(),
    refunds_amount: Type.Number(),
    net_amount: Type.Number({ description: 'sales_amount - refunds_amount' }),
  },
  { title: 'Batch' },
);

export const BatchList = Type.Array(Batch, { description: 'Newest first' });

export const SandboxBatchCloseResponse = Type.Object(
  {
    success: Type.Literal(true),
    error: Type.Literal(''),
    batches: Type.Array(Batch, { description: 'The batches closed (none when nothing was open)' }),
  },
  { title: 'SandboxBatchCloseResponse' },
);
