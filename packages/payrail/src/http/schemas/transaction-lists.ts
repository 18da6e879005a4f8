// Wire schemas of the payin API's reads of transactions and batches in both
// wire dialects (docs/api-decisions.md sections 10 and 14,
// docs/acceptblue-compatibility.md): the list parameters, the bare
// accept.blue transaction object, and accept.blue's Batch. The routes send
// these answers as ready JSON text; the schemas document them.
import { Type } from 'typebox';
import { AcceptBlueTransaction, Batch, ChargeResponse } from './payin.ts';

const queryText = (description: string) => Type.Optional(Type.String({ maxLength: 64, description }));
const nullableText = () => Type.Union([Type.String(), Type.Null()]);

/** The parameters of every transaction list; both dialects take them all (undocumented ones are dropped in the accept.blue dialect). */
export const TransactionListQuery = Type.Object(
  {
    status: queryText(
      'Comma list. A check matches by the status of its ACH entry (pending, originated, settled, returned, voided, declined, error). spec: approved, captured, pending, settled, voided, expired, declined, error, originated, returned. acceptblue: captured, pending, reserve, originated, returned, cancelled, queued, declined, error, settled, voided, approved, blocked, expired',
    ),
    type: queryText('charge, refund or verify'),
    payment_type: queryText('Comma list of credit_card (cards and verifications), check (check charges, refunds and credits)'),
    date_field: queryText('What date_from and date_to bound: created_at (default) or settled_at'),
    date_from: queryText(
      'On or after. spec: YYYY-MM-DD (UTC) or an ISO 8601 timestamp. acceptblue: epoch milliseconds, YYYY-MM-DD or a timestamp, from the start of its UTC day',
    ),
    date_to: queryText(
      'On or before. spec: YYYY-MM-DD (UTC, the whole day) or an ISO 8601 timestamp. acceptblue: epoch milliseconds, YYYY-MM-DD or a timestamp, to the end of its UTC day',
    ),
    settled_date: queryText('Settled on this day (YYYY-MM-DD, UTC) and processed at most 30 days before it'),
    created_from: queryText('Created at or after this ISO 8601 timestamp'),
    created_to: queryText('Created at or before this ISO 8601 timestamp'),
    key: queryText("accept.blue's pay-link key: Payrail has no pay links, so no transaction matches"),
    order: queryText('asc or desc by creation (customer and schedule lists: by reference number); default desc (spec), asc (acceptblue)'),
    limit: queryText('1 to 100, default 10'),
    offset: queryText('Transactions to skip, default 0'),
  },
  { additionalProperties: false },
);

/** The batch list's parameters (both dialects). */
export const BatchListQuery = Type.Object(
  {
    order: queryText('asc or desc by id; default desc (spec), asc (acceptblue)'),
    status: queryText('open or closed'),
    date_from: queryText('Opened on or after (formats as for the transaction list in the dialect)'),
    date_to: queryText('Opened on or before (formats as for the transaction list in the dialect)'),
    limit: queryText('1 to 100, default 10'),
    offset: queryText('Batches to skip, default 0'),
  },
  { additionalProperties: false },
);

/** GET /api/v2/transactions/{id}: the charge answer (spec) or the bare transaction (acceptblue). */
export const TransactionAnswer = Type.Union([ChargeResponse, AcceptBlueTransaction], { title: 'TransactionRead' });

export const TransactionListAnswer = Type.Union(
  [
    Type.Array(ChargeResponse, { description: 'spec: each item as GET /api/v2/transactions/{id} shows it (newest first by default)' }),
    Type.Array(AcceptBlueTransaction, { description: 'acceptblue: bare transaction objects (oldest first by default)' }),
  ],
  { title: 'TransactionList' },
);

/** accept.blue's Batch (the accept.blue dialect's batch reads). */
export const AcceptBlueBatch = Type.Object(
  {
    id: Type.Integer(),
    opened_at: Type.String(),
    auto_close_date: Type.Union([Type.String(), Type.Null()], { description: 'When the daily close will close it; null once closed' }),
    closed_at: nullableText(),
    platform: Type.Null({ description: 'accept.blue names a processor platform; Payrail batches have none' }),
    charges_sum: Type.Number(),
    charges_count: Type.Integer(),
    credits_sum: Type.Number(),
    credits_count: Type.Integer(),
    transactions_count: Type.Integer(),
  },
  { title: 'AcceptBlueBatch' },
);

export const BatchAnswer = Type.Union([Batch, AcceptBlueBatch], { title: 'BatchRead' });

export const BatchListAnswer = Type.Union(
  [Type.Array(Batch, { description: 'spec (newest first by default)' }), Type.Array(AcceptBlueBatch, { description: 'acceptblue (oldest first by default)' })],
  { title: 'BatchListRead' },
);
