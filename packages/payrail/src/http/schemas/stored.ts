// Wire schemas of stored customers, payment methods and recurring schedules
// (docs/api-decisions.md section 15). Requests are validated without
// coercion and unknown fields are refused naming them; what the schema
// cannot check (dates against the clock, the card's expiry, amounts as
// written) the flows check and refuse naming the field.
import { Type, type Static } from 'typebox';
import { FREQUENCIES, type Frequency as FrequencyName } from '../../domain/recurring.ts';

const optionalText = (maxLength: number, description?: string) =>
  Type.Optional(Type.String({ maxLength, ...(description === undefined ? {} : { description }) }));
const nullableText = () => Type.Union([Type.String(), Type.Null()]);
const Id = Type.Integer({ minimum: 1, maximum: 999_999_999_999_999 });
const ExpiryYear = Type.Integer({ minimum: 1000, maximum: 9999, description: 'Card expiry year, four digits' });
const ExpiryMonth = Type.Integer({ minimum: 1, maximum: 12, description: 'Card expiry month, 1 to 12' });
const queryText = (description: string) => Type.Optional(Type.String({ maxLength: 255, description }));

export const IdParams = Type.Object({ id: Type.String({ maxLength: 40, description: 'The id' }) });

export const CustomerCreate = Type.Object(
  {
    identifier: Type.String({ minLength: 1, maxLength: 255, description: "The merchant's name for the customer" }),
    customer_number: optionalText(255, "The merchant's own customer key (shop plugins look customers up by it)"),
    email: optionalText(255),
    first_name: optionalText(100),
    last_name: optionalText(100),
    phone: optionalText(32),
    active: Type.Optional(Type.Boolean({ description: 'Default true' })),
  },
  { title: 'CustomerCreateRequest', additionalProperties: false },
);
export type CustomerCreate = Static<typeof CustomerCreate>;

/** The create body with every field optional: a customer's fields are written once. */
export const CustomerUpdate = Type.Partial(CustomerCreate, { title: 'CustomerUpdateRequest', additionalProperties: false });

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
  },
  { title: 'Customer' },
);

export const CustomerList = Type.Array(Customer, { description: 'Oldest first' });

export const CustomerListQuery = Type.Object(
  {
    active: queryText('true or false'),
    customer_number: queryText('Only the customer with this customer_number'),
    limit: queryText('1 to 100, default 10'),
    offset: queryText('Items to skip, default 0'),
  },
  { additionalProperties: false },
);

export const PaymentMethodCreate = Type.Object(
  {
    source: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'A nonce from tokenization (consumed), or tkn-<card_ref> (a saved-card token, which takes the expiry sent); the security code is never kept',
    }),
    expiry_month: ExpiryMonth,
    expiry_year: ExpiryYear,
    last4: Type.Optional(
      Type.String({ pattern: '^[0-9]{4}$', description: "The card's last 4 digits, as the shop saw them; checked against the nonce's card" }),
    ),
    name: optionalText(100, 'Name on the card, or a label'),
  },
  { title: 'PaymentMethodCreateRequest', additionalProperties: false },
);

export const PaymentMethodUpdate = Type.Object(
  { name: optionalText(100), expiry_month: Type.Optional(ExpiryMonth), expiry_year: Type.Optional(ExpiryYear) },
  { title: 'PaymentMethodUpdateRequest', additionalProperties: false },
);

export const PaymentMethod = Type.Object(
  {
    id: Type.Integer({ description: 'Charge it with source "pm-<id>"' }),
    customer_id: Type.Integer(),
    payment_method_type: Type.Literal('card'),
    card_type: Type.String(),
    last4: Type.String(),
    expiry_month: Type.Integer(),
    expiry_year: Type.Integer(),
    name: nullableText(),
    created_at: Type.String(),
  },
  { title: 'PaymentMethod' },
);

export const PaymentMethodList = Type.Array(PaymentMethod, { description: 'Oldest first' });

/** 409: the card is saved for the customer already; `id` is that method's. */
export const DuplicatePaymentMethod = Type.Object(
  {
    error: Type.Object({ code: Type.Literal('duplicate_payment_method'), message: Type.String() }),
    id: Type.Integer({ description: 'The payment method that has this card already' }),
  },
  { title: 'DuplicatePaymentMethodError' },
);

const Frequency = Type.Unsafe<FrequencyName>({ type: 'string', enum: [...FREQUENCIES], description: FREQUENCIES.join(', ') });
const RunDate = Type.String({ maxLength: 10, description: 'YYYY-MM-DD (UTC), today or later' });
const Amount = Type.Number({ description: 'Dollars, at most 2 decimals, 0.50 to 100000.00' });
const NumLeft = Type.Integer({ minimum: 0, maximum: 10_000, description: 'Runs left; 0 = unlimited' });

export const ScheduleCreate = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 255 }),
    receipt_email: optionalText(255, 'Where the customer is sent a receipt of each run (kept with the schedule)'),
    amount: Amount,
    frequency: Frequency,
    next_run_date: RunDate,
    num_left: Type.Optional(NumLeft),
    payment_method_id: Id,
    active: Type.Optional(Type.Boolean({ description: 'Default true' })),
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
  },
  { title: 'RecurringSchedule' },
);

export const ScheduleList = Type.Array(Schedule, { description: 'Oldest first' });

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
