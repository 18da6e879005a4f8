// Wire schemas of the card payin API (docs/interface-spec.md sections 2.1 and 2.2; docs/api-decisions.md section 8).
// Requests are validated against them without coercion; the reply schemas
// document the three shapes (the routes send replies as ready JSON text, so
// a stored idempotent reply is byte-for-byte what the first caller got).
// Unknown request fields are refused with the field named, so a misspelt
// optional field is reported instead of silently dropped.
import { Type, type Static, type TSchema } from 'typebox';
import { ACCOUNT_TYPE_PATTERN, SEC_CODES } from '../../domain/ach.ts';

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

/**
 * accept.blue's Address: every member optional. In the spec dialect a billing
 * address keeps the interface spec's rules (first_name, last_name, street,
 * city, state, zip and country required and not empty, Payrail's lengths),
 * checked by the charge and verify flows (flows/payin/charge-request.ts), so
 * that an accept.blue caller may send a partial address, or none.
 */
export const Address = Type.Object(
  {
    first_name: optionalText(255),
    last_name: optionalText(255),
    street: optionalText(255),
    street2: optionalText(255),
    city: optionalText(255),
    state: optionalText(255),
    zip: optionalText(50),
    country: optionalText(255),
    phone: optionalText(255),
  },
  { title: 'Address', additionalProperties: false },
);

/** The billing address (spec dialect: required fields as described on Address). */
export const BillingInfo = Type.Object(Address.properties, {
  title: 'BillingInfo',
  additionalProperties: false,
  description:
    'Spec dialect: first_name, last_name, street, city, state, zip and country are required (not empty; at most 100, 100, 200, 100, 64, 20 and 64 characters; street2 200, phone 32). accept.blue dialect: every member optional.',
});

export const TransactionDetails = Type.Object(
  {
    description: optionalText(65535),
    clerk: optionalText(255),
    terminal: optionalText(255),
    client_ip: optionalText(255),
    signature: optionalText(65535),
    invoice_number: optionalText(255),
    po_number: optionalText(255),
    order_number: optionalText(255),
  },
  { title: 'TransactionDetails', additionalProperties: false },
);

// accept.blue's charge fields (docs/acceptblue-compatibility.md), with accept.blue's types and limits.

const dollars = (description: string) => Type.Optional(Type.Number({ minimum: 0, maximum: 20_000_000, description }));

export const AmountDetails = Type.Object(
  {
    tax: dollars('Tax in dollars'),
    tax_percent: Type.Optional(Type.Number({ minimum: 0, description: 'Tax rate in percent; the tax is computed from it when tax is absent' })),
    surcharge: dollars('Surcharge in dollars'),
    shipping: dollars('Shipping in dollars'),
    tip: dollars('Tip in dollars'),
    discount: dollars('Discount in dollars'),
  },
  { title: 'AmountDetails', additionalProperties: false, description: 'Reporting figures, kept and shown; never validated against amount, never change it' },
);

export const LineItem = Type.Object(
  {
    sku: optionalText(12),
    name: optionalText(64),
    description: optionalText(255),
    cost: Type.Optional(Type.Number({ minimum: 0.0001 })),
    quantity: Type.Optional(Type.Integer({ minimum: 1 })),
    tax_rate: Type.Optional(Type.Number({ minimum: 0, maximum: 30 })),
    tax_amount: Type.Optional(Type.Number({ minimum: 0 })),
    unit_of_measure: optionalText(3),
    commodity_code: Type.Optional(Type.String({ minLength: 8, maxLength: 8 })),
    discount_rate: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
    discount_amount: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { title: 'LineItem', additionalProperties: false },
);

export const CustomFields = Type.Object(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`custom${i + 1}`, optionalText(255)])), {
  title: 'CustomFields',
  additionalProperties: false,
  description: 'custom1 to custom20, strings of at most 255 characters',
});

export const ChargeCustomer = Type.Object(
  {
    send_receipt: Type.Optional(Type.Boolean()),
    email: optionalText(255),
    fax: optionalText(255),
    identifier: optionalText(255),
    customer_id: Type.Optional(
      Type.Integer({ minimum: 1, description: "Links the transaction to this customer of the merchant (ignored if it is not the merchant's)" }),
    ),
  },
  { title: 'ChargeCustomer', additionalProperties: false },
);

export const TransactionFlags = Type.Object(
  {
    allow_partial_approval: Type.Optional(Type.Boolean({ description: 'The issuer may approve less than the amount (auth_amount says how much)' })),
    is_recurring: Type.Optional(Type.Boolean()),
    is_installment: Type.Optional(Type.Boolean()),
    is_customer_initiated: Type.Optional(Type.Boolean()),
    cardholder_present: Type.Optional(Type.Boolean()),
    card_present: Type.Optional(Type.Boolean()),
    terminal: Type.Optional(
      Type.Object(
        {
          operating_environment: Type.Optional(Type.Integer({ minimum: 0, maximum: 6 })),
          cardholder_authentication_method: Type.Optional(Type.Union(['0', '2', '5', '6', 'S'].map((v) => Type.Literal(v)))),
          cardholder_authentication_entity: Type.Optional(Type.Union([0, 2, 4, 5].map((v) => Type.Literal(v)))),
          print_capability: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { title: 'TransactionFlags', additionalProperties: false },
);

export const ThreeDSecure = Type.Object(
  {
    eci: Type.Optional(Type.Union(['00', '01', '02', '05', '06', '07'].map((v) => Type.Literal(v)))),
    cavv: Type.Optional(Type.String({ minLength: 28, maxLength: 80 })),
    ds_trans_id: Type.Optional(Type.String({ minLength: 36, maxLength: 36 })),
  },
  { title: 'ThreeDSecure', additionalProperties: false },
);

/** The accept.blue members a charge and a verify share. */
const ACCEPTBLUE_CHARGE_FIELDS = {
  name: optionalText(255),
  amount_details: Type.Optional(AmountDetails),
  line_items: Type.Optional(Type.Array(LineItem, { minItems: 1 })),
  custom_fields: Type.Optional(CustomFields),
  customer: Type.Optional(ChargeCustomer),
  transaction_flags: Type.Optional(TransactionFlags),
  ignore_duplicates: Type.Optional(Type.Boolean({ description: 'Accepted; the Idempotency-Key header is the duplicate protection' })),
  avs_address: optionalText(255),
  avs_zip: optionalText(50),
  shipping_info: Type.Optional(Address),
  '3d_secure': Type.Optional(ThreeDSecure),
  save_card: Type.Optional(Type.Boolean({ description: 'Keep the card as a saved-card token (card_ref)' })),
  cvv2: Type.Optional(Type.String({ pattern: '^[0-9]{3,4}$', description: 'Accepted; a nonce carries its own security code, a stored source needs none' })),
};

/** accept.blue charges Payrail does not offer: accepted by the schema so the refusal can say so (400 not_offered). */
const NOT_OFFERED_FIELDS = {
  magstripe: Type.Optional(Type.String({ description: 'Not offered: card-present (magstripe) charges are refused' })),
  terminal_id: Type.Optional(Type.Union([Type.String(), Type.Integer()], { description: 'Not offered: terminal charges are refused' })),
  token: Type.Optional(Type.Union([Type.String(), Type.Object({})], { description: 'Not offered: digital wallet (googlepay, applepay) charges are refused' })),
};

/**
 * A card sent as such (accept.blue's CreditCardCharge and Verify CC;
 * docs/acceptblue-compatibility.md): exactly one of `source` and `card`,
 * its security code in cvv2 and its token issued by save_card (above).
 */
const CardFields = {
  card: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 32,
      description: 'Card number, digits only (the rules of POST /api/v2/tokens); instead of source, with expiry_month and expiry_year',
    }),
  ),
};

/**
 * A bank account sent as such (accept.blue's CheckFields; behaviour.md
 * section 17): with `name`, a check charge or credit instead of a card. The
 * routing number's check digit and the account number's length are checked
 * by the flow (domain/ach.ts), so the refusal names the rule.
 */
export const CheckFields = {
  routing_number: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'ABA routing number: 9 digits whose check digit holds' })),
  account_number: Type.Optional(
    Type.String({ minLength: 1, maxLength: 32, description: 'Bank account number, 4 to 17 digits; never shown again (answers show its last four)' }),
  ),
  account_type: Type.Optional(
    Type.String({ pattern: ACCOUNT_TYPE_PATTERN, description: 'checking (default) or savings, in either case; answers echo it as sent' }),
  ),
  sec_code: Type.Optional(
    Type.Union(
      SEC_CODES.map((code) => Type.Literal(code)),
      { description: "Standard Entry Class: PPD, CCD, TEL or WEB (default WEB; with a pm- source, overrides the payment method's)" },
    ),
  ),
};

export const ChargeRequest = Type.Object(
  {
    amount: Type.Number({ description: 'Amount in dollars, at most 2 decimals, 0.50 to 100000.00' }),
    source: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          'Nonce from tokenization, pm-<payment method id> (a saved card), ref-<reference number> (the card of an earlier approved charge or verification) or tkn-<card_ref> (a saved-card token); or send card instead',
      }),
    ),
    ...CardFields,
    expiry_month: Type.Optional({ ...ExpiryMonth, description: 'Card expiry month, 1 to 12; required with a nonce, else taken from the stored card' }),
    expiry_year: Type.Optional({ ...ExpiryYear, description: 'Card expiry year; required with a nonce, else taken from the stored card' }),
    billing_info: Type.Optional(BillingInfo),
    transaction_details: Type.Optional(TransactionDetails),
    capture: Type.Optional(
      Type.Boolean({ description: 'false authorizes only: nothing is credited until POST /api/v2/transactions/capture; authorizations expire after 7 days' }),
    ),
    ...ACCEPTBLUE_CHARGE_FIELDS,
    ...CheckFields,
    ...NOT_OFFERED_FIELDS,
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
  // Untitled: the OpenAPI document replaces each operation's refusals with its own codes (http/openapi.ts errorSchema).
  {},
);

/**
 * A rejected payin request: shape C in the spec dialect, accept.blue's body
 * in the accept.blue dialect, and both at once when the caller's dialect is
 * not known (its credentials were refused). Listed most members first: an
 * answer is written with the first member it matches.
 */
export const PayinRefusal = Type.Union([Type.Object({ ...ShapeC.properties, ...AcceptBlueRefusal.properties }), AcceptBlueRefusal, ShapeC], {
  title: 'PayinRefusal',
});

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

/** accept.blue's check_details: a check transaction's account (never its number) and return. */
export const CheckDetails = Type.Object(
  {
    name: Type.String(),
    routing_number: Type.String(),
    account_number_last4: Type.String(),
    account_type: Type.String({ description: 'As sent (checking or savings, in the case sent)' }),
    sec_code: Type.String(),
    returned_at: Type.Union([Type.String(), Type.Null()], { description: 'YYYY-MM-DD when the bank returned it' }),
    returned_code: Type.Union([Type.String(), Type.Null()], { description: 'NACHA return code (R01...)' }),
    returned_reason: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'CheckDetails', description: 'A check transaction' },
);

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
    card_ref: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: 'With save_card: the saved-card token (use as tkn-<card_ref>) once approved, null until then',
      }),
    ),
    transaction: Type.Object({
      id: Type.Integer(),
      created_at: Type.String(),
      status_details: Type.Object({
        status: Type.String({
          description:
            'approved (authorized), captured, pending, settled, voided, expired; a check, the status of its ACH entry: pending, originated, settled, returned, voided, declined, error',
        }),
      }),
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
      check_details: Type.Optional(CheckDetails),
      card_details: Type.Optional(
        Type.Object(
          {
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
          },
          { description: 'A card transaction' },
        ),
      ),
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
        batch_id: Type.Union([Type.Integer(), Type.Null()], { description: 'The batch of a card transaction (0: none yet); null for a check' }),
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

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const nullableInteger = () => nullable(Type.Integer());

/** accept.blue's Transaction object: the accept.blue dialect's `transaction` member (docs/acceptblue-compatibility.md). */
export const AcceptBlueTransaction = Type.Object(
  {
    id: Type.Integer({ description: 'The reference number' }),
    created_at: Type.String(),
    settled_date: nullableText(),
    amount_details: Type.Object({
      amount: Type.Number(),
      tax: Type.Number(),
      tax_percent: Type.Number(),
      surcharge: Type.Number(),
      shipping: Type.Number(),
      tip: Type.Number(),
      discount: Type.Number(),
      subtotal: Type.Number({ description: 'amount less tax, shipping, tip and surcharge, plus discount (0 at least)' }),
      original_requested_amount: Type.Number(),
      original_authorized_amount: Type.Number({ description: 'Less than requested after a partial approval' }),
    }),
    transaction_details: Type.Object({
      description: nullableText(),
      clerk: nullableText(),
      terminal: nullableText(),
      client_ip: nullableText(),
      signature: nullableText(),
      invoice_number: nullableText(),
      po_number: nullableText(),
      order_number: nullableText(),
      batch_id: nullableInteger(),
      source: Type.String(),
      terminal_name: nullableText(),
      terminal_id: nullableText(),
      username: nullableText(),
      type: Type.String({ description: 'charge, or credit for a refund' }),
      reference_number: nullableInteger(),
      schedule_id: nullableInteger(),
    }),
    customer: Type.Object({ identifier: nullableText(), email: nullableText(), fax: nullableText(), customer_id: nullableInteger() }),
    status_details: Type.Object({
      status: Type.String({
        description: 'queued (authorized, not captured), captured, pending, settled, voided, expired, declined, error, approved (a verification)',
      }),
      error_code: nullableText(),
      error_message: nullableText(),
    }),
    billing_info: NullableAddress,
    shipping_info: NullableAddress,
    custom_fields: Type.Object({}, { description: 'custom1 to custom20 as sent, and transfers: the transfers the charge funds' }),
    line_items: Type.Array(Type.Object({})),
    check_details: Type.Optional(CheckDetails),
    card_details: Type.Optional(
      Type.Object({
        name: nullableText(),
        last4: Type.String(),
        expiry_month: Type.Integer(),
        expiry_year: Type.Integer(),
        card_type: Type.String({ description: 'Visa, MasterCard, Amex, Discover, JCB or Diners' }),
        avs_street: nullableText(),
        avs_zip: nullableText(),
        auth_code: nullableText(),
        bin: Type.String(),
        bin_details: Type.Object({ type: nullableText() }),
        avs_result: nullableText(),
        avs_result_code: nullableText(),
        cvv_result: nullableText(),
        cvv_result_code: nullableText(),
        cavv_result: nullableText(),
        cavv_result_code: nullableText(),
      }),
    ),
  },
  { title: 'AcceptBlueTransaction' },
);

/** accept.blue's CreditCardResponse (and VerificationResponse): every charge answer in the accept.blue dialect, HTTP 200. */
export const AcceptBlueChargeResponse = Type.Object(
  {
    version: Type.String(),
    status: Type.String({ description: 'Approved, Partially Approved, Submitted (held for review or not answered yet), Declined or Error' }),
    status_code: Type.String({ description: 'A, P (partially approved or submitted), D or E' }),
    error_message: nullableText(),
    error_code: nullableText(),
    error_details: Type.Null(),
    reference_number: Type.Integer(),
    auth_amount: Type.Number(),
    auth_code: nullableText(),
    avs_result: nullableText(),
    avs_result_code: nullableText(),
    cvv2_result: nullableText(),
    cvv2_result_code: nullableText(),
    card_type: Type.String(),
    last_4: Type.String(),
    card_ref: nullableText(),
    bin_type: Type.Object({ type: nullableText() }),
    transaction: AcceptBlueTransaction,
  },
  { title: 'AcceptBlueChargeResult' },
);

/** accept.blue's Check Response: BaseChargeResponse with a CheckTransaction (a check charge in the accept.blue dialect). */
export const AcceptBlueCheckChargeResponse = Type.Object(
  {
    version: Type.String(),
    status: Type.String({ description: 'Approved, Submitted (not answered yet), Declined or Error' }),
    status_code: Type.String({ description: 'A, P, D or E' }),
    error_message: nullableText(),
    error_code: nullableText(),
    error_details: Type.Null(),
    reference_number: Type.Integer(),
    auth_amount: Type.Number(),
    auth_code: nullableText(),
    transaction: AcceptBlueTransaction,
  },
  { title: 'AcceptBlueCheckChargeResult' },
);

export const ChargeResponse = Type.Union([ShapeA, ShapeB, AcceptBlueChargeResponse, AcceptBlueCheckChargeResponse], { title: 'TransactionResult' });

// The card transaction lifecycle (docs/api-decisions.md sections 10 and 14) --------

// The operations after a charge (capture, void, refund, reversal, adjust, credit, queue) have their schemas in payin-operations.ts.

/** Verify: the charge body without amount (and without capture). */
export const VerifyRequest = Type.Object(
  {
    source: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Nonce from tokenization; or send card instead' })),
    ...CardFields,
    expiry_month: ExpiryMonth,
    expiry_year: ExpiryYear,
    billing_info: Type.Optional(BillingInfo),
    transaction_details: Type.Optional(TransactionDetails),
    ...ACCEPTBLUE_CHARGE_FIELDS,
    ...NOT_OFFERED_FIELDS,
  },
  { title: 'VerifyRequest', additionalProperties: false },
);
export type VerifyRequest = Static<typeof VerifyRequest>;

const queryText = (description: string) => Type.Optional(Type.String({ maxLength: 64, description }));

export const PageQuery = Type.Object(
  { limit: queryText('1 to 100, default 10'), offset: queryText('Items to skip, default 0') },
  { additionalProperties: false },
);

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

export const SandboxBatchCloseResponse = Type.Object(
  {
    success: Type.Literal(true),
    error: Type.Literal(''),
    batches: Type.Array(Batch, { description: 'The batches closed (none when nothing was open)' }),
  },
  { title: 'SandboxBatchCloseResponse' },
);
