// Wire schemas of the card operations after a charge in accept.blue's
// terms (docs/acceptblue-compatibility.md; accept.blue's v2 RefundRequest,
// VoidRequest, ReversalRequest, AdjustRequest, SourceCredit and their
// answers): every field accept.blue documents for these endpoints, with its
// documented type and limits, so both dialects accept it. Requests are read
// the same in both dialects; the answers below are the accept.blue
// dialect's (the spec dialect answers shape A or B, as before).
import { Type, type Static } from 'typebox';
import { ChargeResponse, CheckFields } from './payin.ts';

const text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
const money = (description: string) => Type.Optional(Type.Number({ minimum: 0, maximum: 20_000_000, description }));

/** Reference numbers are positive integers of at most 15 digits (domain/references.ts). */
const ReferenceNumber = Type.Integer({ minimum: 1, maximum: 999_999_999_999_999, description: 'Reference number of the transaction acted on' });
const Amount = (description: string) => Type.Optional(Type.Number({ description }));

/** accept.blue's customer of a refund, void, reversal or adjust: shown on the transaction, never a link to a stored customer. */
const OperationCustomer = Type.Object(
  {
    send_receipt: Type.Optional(Type.Boolean({ description: 'Accepted; Payrail sends no receipts' })),
    email: text(255),
    fax: text(255),
    identifier: text(255),
  },
  { additionalProperties: false },
);

/** accept.blue's base transaction details (refund, void, reversal). */
const BaseTransactionDetails = {
  description: text(65_535),
  clerk: text(255),
  terminal: text(255),
  client_ip: text(255),
  signature: text(65_535),
};
const OperationTransactionDetails = Type.Object(BaseTransactionDetails, { additionalProperties: false });
/** The base set plus the order's numbers (adjust, credit). */
const ExtendedTransactionDetails = Type.Object(
  { ...BaseTransactionDetails, invoice_number: text(255), po_number: text(255), order_number: text(255) },
  { additionalProperties: false },
);

const TerminalFlags = Type.Object(
  {
    operating_environment: Type.Optional(Type.Integer({ minimum: 0, maximum: 6 })),
    cardholder_authentication_method: Type.Optional(
      Type.Union([Type.Literal('0'), Type.Literal('2'), Type.Literal('5'), Type.Literal('6'), Type.Literal('S')]),
    ),
    cardholder_authentication_entity: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(2), Type.Literal(4), Type.Literal(5)])),
    print_capability: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const flag = () => Type.Optional(Type.Boolean());
/** accept.blue's transaction flags: accepted on refunds and credits; they change nothing there. */
const TransactionFlags = Type.Object(
  {
    allow_partial_approval: flag(),
    is_recurring: flag(),
    is_installment: flag(),
    is_customer_initiated: flag(),
    cardholder_present: flag(),
    card_present: flag(),
    terminal: Type.Optional(TerminalFlags),
  },
  { additionalProperties: false },
);

const customFields: Record<string, ReturnType<typeof text>> = {};
for (let n = 1; n <= 20; n++) customFields[`custom${n}`] = text(255);
const CustomFields = Type.Object(customFields, { additionalProperties: false });

const AmountDetails = Type.Object(
  {
    tax: money('Kept and shown; never changes amount'),
    tax_percent: Type.Optional(Type.Number({ minimum: 0 })),
    surcharge: money('Kept and shown'),
    shipping: money('Kept and shown'),
    tip: money('Kept and shown'),
    discount: money('Kept and shown'),
  },
  { additionalProperties: false },
);

const Address = Type.Object(
  {
    first_name: text(255),
    last_name: text(255),
    street: text(255),
    street2: text(255),
    state: text(255),
    city: text(255),
    zip: text(50),
    country: text(255),
    phone: text(255),
  },
  { additionalProperties: false },
);

const LineItem = Type.Object(
  {
    sku: text(12),
    name: text(64),
    description: text(255),
    cost: Type.Optional(Type.Number({ minimum: 0.0001 })),
    quantity: Type.Optional(Type.Integer({ minimum: 1 })),
    tax_rate: Type.Optional(Type.Number({ minimum: 0, maximum: 30 })),
    tax_amount: Type.Optional(Type.Number({ minimum: 0 })),
    unit_of_measure: text(3),
    commodity_code: Type.Optional(Type.String({ minLength: 8, maxLength: 8 })),
    discount_rate: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
    discount_amount: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { additionalProperties: false },
);

const TerminalId = Type.Optional(Type.String({ maxLength: 255, description: 'Card-present terminals are not offered: a request naming one is refused' }));

export const CaptureTransactionRequest = Type.Object(
  {
    reference_number: ReferenceNumber,
    amount: Amount('Dollars, at most 2 decimals; absent: the authorized amount. A capture of a captured transaction answers it as it stands'),
  },
  { title: 'CaptureTransactionRequest', additionalProperties: false },
);
export type CaptureTransactionRequest = Static<typeof CaptureTransactionRequest>;

export const VoidTransactionRequest = Type.Object(
  {
    reference_number: ReferenceNumber,
    amount: Amount('Dollars; when given, the whole amount (a void cancels all of it)'),
    customer: Type.Optional(OperationCustomer),
    transaction_details: Type.Optional(OperationTransactionDetails),
  },
  { title: 'VoidTransactionRequest', additionalProperties: false },
);
export type VoidTransactionRequest = Static<typeof VoidTransactionRequest>;

export const RefundTransactionRequest = Type.Object(
  {
    reference_number: ReferenceNumber,
    amount: Amount('Dollars, at most 2 decimals; absent: all that is refundable. The accept.blue dialect also takes a decimal string ("10.00"), read exactly'),
    terminal_id: TerminalId,
    cvv2: Type.Optional(
      Type.String({ pattern: '^[0-9]{3,4}$', description: 'Accepted; a refund goes back by the charge reference, so the code is not needed' }),
    ),
    customer: Type.Optional(OperationCustomer),
    transaction_details: Type.Optional(OperationTransactionDetails),
    transaction_flags: Type.Optional(TransactionFlags),
    custom_fields: Type.Optional(CustomFields),
  },
  { title: 'RefundTransactionRequest', additionalProperties: false },
);
export type RefundTransactionRequest = Static<typeof RefundTransactionRequest>;

export const ReversalTransactionRequest = Type.Object(
  {
    reference_number: ReferenceNumber,
    amount: Amount(
      'Dollars. Absent: void when unsettled, refund all when settled. Given: an authorization is reduced by it (the whole amount voids), a settled charge refunded by it. The accept.blue dialect also takes a decimal string ("10.00"), read exactly',
    ),
    terminal_id: TerminalId,
    customer: Type.Optional(OperationCustomer),
    transaction_details: Type.Optional(OperationTransactionDetails),
  },
  { title: 'ReversalTransactionRequest', additionalProperties: false },
);
export type ReversalTransactionRequest = Static<typeof ReversalTransactionRequest>;

export const AdjustTransactionRequest = Type.Object(
  {
    reference_number: ReferenceNumber,
    amount: Amount("The new total in dollars; absent when only details change. An authorization's amount may go down, not up; a captured one's cannot change"),
    customer: Type.Optional(OperationCustomer),
    transaction_details: Type.Optional(ExtendedTransactionDetails),
    amount_details: Type.Optional(AmountDetails),
    billing_info: Type.Optional(Address),
    shipping_info: Type.Optional(Address),
    custom_fields: Type.Optional(CustomFields),
    line_items: Type.Optional(Type.Array(LineItem, { minItems: 1, maxItems: 100, description: 'Replace the transaction’s line items' })),
  },
  { title: 'AdjustTransactionRequest', additionalProperties: false },
);
export type AdjustTransactionRequest = Static<typeof AdjustTransactionRequest>;

export const CreditTransactionRequest = Type.Object(
  {
    amount: Type.Number({ description: 'Dollars, at most 2 decimals, 0.50 to 100000.00: the money sent to the card' }),
    source: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'The card: nonce-<token>, pm-<payment method id>, ref-<reference number> (its card only: that transaction is untouched) or tkn-<card_ref>',
      }),
    ),
    card: Type.Optional(Type.String({ pattern: '^[0-9]{12,19}$', description: 'A card number: send a source instead (see the compatibility guide)' })),
    expiry_month: Type.Optional(Type.Integer({ minimum: 0, maximum: 12, description: 'Required with a nonce; 0 reads as absent' })),
    expiry_year: Type.Optional(Type.Integer({ minimum: 0, maximum: 9999, description: 'Required with a nonce; 0 reads as absent' })),
    cvv2: Type.Optional(Type.String({ pattern: '^[0-9]{3,4}$', description: 'Accepted; a credit needs no security code' })),
    name: text(255),
    avs_address: text(255),
    avs_zip: text(50),
    // A check credit (accept.blue's CheckCredit): name, routing_number and account_number instead of a card or source.
    ...CheckFields,
    customer: Type.Optional(OperationCustomer),
    transaction_details: Type.Optional(ExtendedTransactionDetails),
    transaction_flags: Type.Optional(TransactionFlags),
    custom_fields: Type.Optional(CustomFields),
  },
  { title: 'CreditTransactionRequest', additionalProperties: false },
);
export type CreditTransactionRequest = Static<typeof CreditTransactionRequest>;

export const QueueTransactionRequest = Type.Object({ reference_number: ReferenceNumber }, { title: 'QueueTransactionRequest', additionalProperties: false });
export type QueueTransactionRequest = Static<typeof QueueTransactionRequest>;

// Answers in the accept.blue dialect ------------------------------------------

/** accept.blue's BaseResponse: on success the error members are null (some plugins fail any answer with an error_message). */
const BaseAnswer = {
  version: Type.String({ description: '"2.0.0"' }),
  status: Type.Union([Type.Literal('Approved'), Type.Literal('Declined'), Type.Literal('Error')]),
  status_code: Type.Union([Type.Literal('A'), Type.Literal('D'), Type.Literal('E')]),
  error_message: Type.Union([Type.String(), Type.Null()]),
  error_code: Type.Union([Type.String(), Type.Null()]),
  error_details: Type.Union([Type.Record(Type.String(), Type.Array(Type.String())), Type.Null()]),
};
const AuthMembers = {
  auth_amount: Type.Number({ description: 'The authorized amount after the operation, in dollars' }),
  auth_code: Type.Optional(Type.String()),
  reference_number: Type.Optional(Type.Integer({ description: 'The transaction acted on (WooCommerce reads it after a capture)' })),
};

export const AcceptBlueAdjustCaptureAnswer = Type.Object({ ...BaseAnswer, ...AuthMembers }, { title: 'AcceptBlueAdjustCaptureResponse' });
export const AcceptBlueRefundAnswer = Type.Object(
  { ...BaseAnswer, reference_number: Type.Integer({ description: 'The new refund or credit transaction' }) },
  { title: 'AcceptBlueRefundResponse' },
);
export const AcceptBlueVoidAnswer = Type.Object(BaseAnswer, { title: 'AcceptBlueVoidResponse' });
export const AcceptBlueReversalAnswer = Type.Object(
  {
    ...BaseAnswer,
    type: Type.Union([Type.Literal('Void'), Type.Literal('Refund'), Type.Literal('Adjustment')]),
    reference_number: Type.Optional(Type.Integer({ description: 'Refund: the new refund transaction; Adjustment: the adjusted one' })),
    auth_amount: Type.Optional(Type.Number()),
    auth_code: Type.Optional(Type.String()),
  },
  { title: 'AcceptBlueReversalResponse' },
);

/** Each operation's 200 answer: shape A or B in the spec dialect, accept.blue's answer in the accept.blue dialect. */
const either = (
  title: string,
  answer: typeof AcceptBlueAdjustCaptureAnswer | typeof AcceptBlueRefundAnswer | typeof AcceptBlueVoidAnswer | typeof AcceptBlueReversalAnswer,
) => Type.Union([...ChargeResponse.anyOf, answer], { title });
export const CaptureResponse = either('CaptureResult', AcceptBlueAdjustCaptureAnswer);
export const RefundResponse = either('RefundResult', AcceptBlueRefundAnswer);
export const VoidResponse = either('VoidResult', AcceptBlueVoidAnswer);
export const ReversalResponse = either('ReversalResult', AcceptBlueReversalAnswer);
