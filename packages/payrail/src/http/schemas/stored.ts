// Wire schemas of stored customers, payment methods and recurring schedules
// (docs/api-decisions.md section 15). Requests are validated without
// coercion and unknown fields are refused naming them; what the schema
// cannot check (dates against the clock, the card's expiry, amounts as
// written) the flows check and refuse naming the field.
import { Type, type Static, type TSchema, type TUnsafe } from 'typebox';
import { FREQUENCIES, type Frequency as FrequencyName } from '../../domain/recurring.ts';

const optionalText = (maxLength: number, description?: string) =>
  Type.Optional(Type.String({ maxLength, ...(description === undefined ? {} : { description }) }));
const nullableText = () => Type.Union([Type.String(), Type.Null()]);
const Id = Type.Integer({ minimum: 1, maximum: 999_999_999_999_999 });
const ExpiryYear = Type.Integer({ minimum: 1000, maximum: 9999, description: 'Card expiry year, four digits' });
const ExpiryMonth = Type.Integer({ minimum: 1, maximum: 12, description: 'Card expiry month, 1 to 12' });
const queryText = (description: string) => Type.Optional(Type.String({ maxLength: 255, description }));

export const IdParams = Type.Object({ id: Type.String({ maxLength: 40, description: 'The id' }) });

/** accept.blue's Address: every member optional (docs/acceptblue-compatibility.md). */
const Address = (title: string) =>
  Type.Object(
    {
      first_name: optionalText(255),
      last_name: optionalText(255),
      street: optionalText(255),
      street2: optionalText(255),
      state: optionalText(255),
      city: optionalText(255),
      zip: optionalText(50),
      country: optionalText(255, 'Two letters advised'),
      phone: optionalText(255),
    },
    { title, additionalProperties: false },
  );

const customerFields = {
  customer_number: optionalText(255, "The merchant's own customer key (shop plugins look customers up by it)"),
  email: optionalText(255),
  first_name: optionalText(100),
  last_name: optionalText(100),
  phone: optionalText(50),
  active: Type.Optional(Type.Boolean({ description: 'Default true' })),
  website: optionalText(255),
  alternate_phone: optionalText(50),
  note: optionalText(750),
  billing_info: Type.Optional(Address('CustomerAddressRequest')),
  shipping_info: Type.Optional(Address('CustomerAddressRequest')),
};

export const CustomerCreate = Type.Object(
  { identifier: Type.String({ minLength: 1, maxLength: 255, description: "The merchant's name for the customer" }), ...customerFields },
  { title: 'CustomerCreateRequest', additionalProperties: false },
);
export type CustomerCreate = Static<typeof CustomerCreate>;

/** The create body with every field optional: a customer's fields are written once; an address replaces the one kept. */
export const CustomerUpdate = Type.Partial(CustomerCreate, { title: 'CustomerUpdateRequest', additionalProperties: false });

export const CustomerFromTransaction = Type.Object(
  {
    reference_number: Type.Integer({ minimum: 1, description: 'The transaction to build the customer from (linked to it when it had no customer)' }),
    identifier: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: "The merchant's name for the customer; required when the transaction has none" }),
    ),
    ...customerFields,
  },
  { title: 'CustomerFromTransactionRequest', additionalProperties: false },
);

/** An address as answered: accept.blue-dialect callers get every member (null when never given), spec callers the members given. */
const ShownAddress = Type.Object(
  {
    first_name: Type.Optional(nullableText()),
    last_name: Type.Optional(nullableText()),
    street: Type.Optional(nullableText()),
    street2: Type.Optional(nullableText()),
    state: Type.Optional(nullableText()),
    city: Type.Optional(nullableText()),
    zip: Type.Optional(nullableText()),
    country: Type.Optional(nullableText()),
    phone: Type.Optional(nullableText()),
  },
  { title: 'CustomerAddress' },
);

/** accept.blue's members beside section 15's: always in the accept.blue dialect, once given in the spec dialect. */
const addedMember = <T extends TSchema>(schema: T) => Type.Optional(schema);

export const Customer = Type.Object(
  {
    id: Type.Integer(),
    identifier: Type.String(),
    customer_number: nullableText(),
    email: nullableText(),
    first_name: nullableText(),
    last_name: nullableText(),
    phone: nullableText(),
    active: Type.Boolean(),
    created_at: Type.String(),
    website: addedMember(nullableText()),
    alternate_phone: addedMember(nullableText()),
    note: addedMember(nullableText()),
    billing_info: addedMember(ShownAddress),
    shipping_info: addedMember(ShownAddress),
  },
  { title: 'Customer' },
);

export const CustomerList = Type.Array(Customer, { description: 'Oldest first (order=desc: newest first)' });

const Order = queryText('asc (default: oldest first) or desc');

export const CustomerListQuery = Type.Object(
  {
    active: queryText('true or false'),
    customer_number: queryText('Only the customer with this customer_number'),
    limit: queryText('1 to 100, default 10'),
    offset: queryText('Items to skip, default 0'),
    order: Order,
  },
  { additionalProperties: false },
);

/** Paging of the lists of payment methods and schedules (accept.blue's order, limit, offset). */
export const StoredPageQuery = Type.Object(
  { limit: queryText('1 to 100, default 10'), offset: queryText('Items to skip, default 0'), order: Order },
  { additionalProperties: false },
);

/** A saved check's members (accept.blue's BaseCheckPM): a body with any of them and no source saves a check. */
const checkFields = {
  routing_number: optionalText(20, 'Check: the bank routing number, 9 digits with a valid ABA check digit (required)'),
  account_type: optionalText(20, 'Check: checking or savings, in any case; kept and answered as sent (required)'),
  sec_code: optionalText(10, 'Check: PPD, CCD, TEL or WEB (default WEB)'),
};

const paymentMethodFields = {
  source: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'A nonce from tokenization (consumed; expiry required), ref-<reference number> (the card of an earlier approved transaction; its expiry unless sent), or tkn-<card_ref> (a saved-card token, which takes the expiry sent; expiry required)',
    }),
  ),
  expiry_month: Type.Optional(ExpiryMonth),
  expiry_year: Type.Optional(ExpiryYear),
  name: optionalText(100, 'Name on the card, or a label; for a check: the account holder (required)'),
  avs_address: optionalText(255, 'Street address for the AVS check'),
  avs_zip: optionalText(50, 'Postal code for the AVS check'),
  ...checkFields,
  account_number: optionalText(64, 'Check: the account number, 4 to 17 digits (required; sealed, only its last 4 digits are kept in clear and shown)'),
};

export const PaymentMethodCreate = Type.Object(
  {
    ...paymentMethodFields,
    last4: Type.Optional(
      Type.String({ pattern: '^[0-9]{4}$', description: "The card's last 4 digits, as the shop saw them; checked against the card (spec dialect)" }),
    ),
  },
  { title: 'PaymentMethodCreateRequest', additionalProperties: false },
);

/** The create body as accept.blue documents it: an accept.blue-dialect caller's undocumented `last4` is dropped, not checked. */
export const AcceptBluePaymentMethodCreate = Type.Object(paymentMethodFields, { additionalProperties: false });

export const PaymentMethodUpdate = Type.Object(
  {
    name: optionalText(100),
    expiry_month: Type.Optional(ExpiryMonth),
    expiry_year: Type.Optional(ExpiryYear),
    avs_address: optionalText(255),
    avs_zip: optionalText(50),
    ...checkFields,
    account_number: optionalText(64, 'Refused: a saved check keeps its account number (save a new payment method for another account)'),
  },
  { title: 'PaymentMethodUpdateRequest', additionalProperties: false },
);

/**
 * A saved card or check (accept.blue's PaymentMethod, one object told apart
 * by payment_method_type). A check shows its own members and the card
 * members a reader may index (card_type, the expiry) as null.
 */
export const PaymentMethod = Type.Object(
  {
    id: Type.Integer({ description: 'Charge it with source "pm-<id>"' }),
    customer_id: Type.Integer(),
    payment_method_type: Type.Union([Type.Literal('card'), Type.Literal('check')]),
    card_type: Type.Union([Type.String(), Type.Null()], {
      description: "accept.blue dialect: Visa, MasterCard, Amex, Discover, JCB, Diners; spec: Payrail's names; null for a check",
    }),
    last4: Type.String({ description: "The card's or the account number's last 4 digits" }),
    expiry_month: Type.Union([Type.Integer(), Type.Null()], { description: 'null for a check' }),
    expiry_year: Type.Union([Type.Integer(), Type.Null()], { description: 'null for a check' }),
    name: nullableText(),
    created_at: Type.String(),
    avs_address: addedMember(nullableText()),
    avs_zip: addedMember(nullableText()),
    bin: Type.Optional(Type.String({ description: 'accept.blue dialect: the first 6 digits' })),
    bin_details: Type.Optional(Type.Object({ type: Type.Null() }, { description: 'accept.blue dialect: credit or debit, null (not known)' })),
    routing_number: Type.Optional(nullableText()),
    account_type: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Check: as the request wrote it ("Checking" stays "Checking")' })),
    sec_code: Type.Optional(nullableText()),
    account_number: Type.Optional(Type.Null({ description: 'Check: never shown (only last4)' })),
  },
  { title: 'PaymentMethod' },
);

export const PaymentMethodList = Type.Array(PaymentMethod, { description: 'Oldest first (order=desc: newest first)' });

/** 409: the card (or bank account) is saved for the customer already; `id` is that method's. */
export const DuplicatePaymentMethod = Type.Object(
  {
    error: Type.Object({ code: Type.Literal('duplicate_payment_method'), message: Type.String() }),
    id: Type.Integer({ description: 'The payment method that has this card already' }),
  },
  { title: 'DuplicatePaymentMethodError' },
);

/** 409 in the accept.blue dialect: accept.blue's body, the existing method whole. */
export const AcceptBlueDuplicatePaymentMethod = Type.Object(
  {
    version: Type.String(),
    status: Type.Literal('Error'),
    status_code: Type.Literal('E'),
    error_message: Type.Literal('Invalid state error'),
    error_code: Type.Literal('duplicate_payment_method'),
    error_details: Type.Object({ error: Type.String(), payment_method: PaymentMethod }),
  },
  { title: 'AcceptBlueDuplicatePaymentMethodError' },
);

// Typed as the JSON schema it is, so the accept.blue request shaping (http/dialect-requests.ts) reads it as a string member.
const Frequency = Type.Unsafe<FrequencyName>({ type: 'string', enum: [...FREQUENCIES], description: FREQUENCIES.join(', ') }) as TUnsafe<FrequencyName> & {
  readonly type: 'string';
};
const RunDate = Type.String({ maxLength: 10, description: 'YYYY-MM-DD (UTC), today or later' });
const Amount = Type.Number({ description: 'Dollars, at most 2 decimals, 0.50 to 100000.00' });
const NumLeft = Type.Integer({ minimum: 0, maximum: 10_000, description: 'Runs left; 0 = unlimited' });

export const ScheduleCreate = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 255 }),
    receipt_email: optionalText(255, 'Where the customer is sent a receipt of each run (kept with the schedule)'),
    amount: Amount,
    frequency: Frequency,
    next_run_date: Type.Optional(Type.String({ maxLength: 10, description: 'YYYY-MM-DD (UTC), today or later; default tomorrow (UTC)' })),
    num_left: Type.Optional(NumLeft),
    payment_method_id: Id,
    active: Type.Optional(Type.Boolean({ description: 'Default true' })),
    use_this_source_key: Type.Optional(
      Type.Boolean({
        description: 'Default false: runs are charged under the source that saved the card; true: under the source whose key creates the schedule',
      }),
    ),
  },
  { title: 'RecurringScheduleCreateRequest', additionalProperties: false },
);
export type ScheduleCreate = Static<typeof ScheduleCreate>;

export const ScheduleUpdate = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    receipt_email: optionalText(255),
    amount: Type.Optional(Amount),
    frequency: Type.Optional(Frequency),
    next_run_date: Type.Optional(RunDate),
    num_left: Type.Optional(NumLeft),
    payment_method_id: Type.Optional(Id),
    active: Type.Optional(Type.Boolean({ description: 'false pauses the schedule, true resumes it' })),
  },
  { title: 'RecurringScheduleUpdateRequest', additionalProperties: false },
);
export type ScheduleUpdate = Static<typeof ScheduleUpdate>;

export const Schedule = Type.Object(
  {
    id: Type.Integer(),
    customer_id: Type.Integer(),
    title: Type.String(),
    receipt_email: nullableText(),
    amount: Type.Number(),
    frequency: Frequency,
    next_run_date: Type.String(),
    num_left: Type.Integer(),
    payment_method_id: Type.Integer(),
    active: Type.Boolean(),
    status: Type.Union([Type.Literal('active'), Type.Literal('declined'), Type.Literal('failed'), Type.Literal('finished')], {
      description: 'declined: the last run was declined and is retried on each of the next 3 days; failed: stopped after that',
    }),
    created_at: Type.String(),
    prev_run_date: addedMember(Type.Union([Type.String(), Type.Null()], { description: 'accept.blue dialect: the latest date a run was made for' })),
    transaction_count: addedMember(Type.Integer({ description: 'accept.blue dialect: the runs made' })),
  },
  { title: 'RecurringSchedule' },
);

export const ScheduleList = Type.Array(Schedule, { description: 'Oldest first (order=desc: newest first)' });

export const SandboxScheduleRunResponse = Type.Object(
  {
    success: Type.Literal(true),
    error: Type.Literal(''),
    charged: Type.Boolean({ description: 'false when the date had been run already (nothing charged now)' }),
    schedule: Schedule,
    transaction: Type.Unknown({ description: "The run's transaction as GET /api/v2/transactions/{id} shows it" }),
  },
  { title: 'SandboxScheduleRunResponse' },
);
