// Transaction reads on the payin API (docs/api-decisions.md sections 10, 14
// and 15, docs/acceptblue-compatibility.md): GET /api/v2/transactions and the
// lists of a batch, a stored customer and a schedule, each item as
// GET /api/v2/transactions/:id shows it in the caller's dialect, filtered by
// status, type, payment type and time, in either order, paged by limit and
// offset; and GET /api/v2/transactions/:id in the accept.blue dialect (the
// bare transaction object). Every filter is checked here and a bad one is
// refused naming it.
import {
  ACCEPTBLUE_TRANSACTION_STATUSES,
  PAYMENT_TYPES,
  statesShowing,
  TRANSACTION_STATUSES,
  TRANSACTION_TYPES,
  type TransactionType,
} from '../../domain/card-lifecycle.ts';
import { achStatesShowing } from '../../domain/ach.ts';
import { DAY_MS } from '../../domain/clock.ts';
import { parseReferenceNumber } from '../../domain/references.ts';
import type { WireDialect } from '../../domain/wire-dialect.ts';
import { fail } from '../../errors.ts';
import type { Service } from '../../service.ts';
import { listFundedTransactions, readFundedTransaction } from '../../store/payin/transactions.ts';
import type { TransactionFilters, TransactionScope } from '../../store/transactions.ts';
import { FUNDED_TRANSFERS_SHOWN_MAX } from '../transfers/funding.ts';
import { renderCharge } from './charge-answers.ts';
import { commaList, maxOf, minOf, oneOf, orderOf, page, refuseParameter, timeBound, utcDay } from './list-query.ts';
import { renderTransaction } from './transaction-view.ts';

/** The query string of a transaction list, as received (every value text). */
export interface TransactionListQuery {
  readonly status?: string | undefined;
  readonly type?: string | undefined;
  readonly payment_type?: string | undefined;
  readonly date_field?: string | undefined;
  readonly date_from?: string | undefined;
  readonly date_to?: string | undefined;
  readonly settled_date?: string | undefined;
  readonly created_from?: string | undefined;
  readonly created_to?: string | undefined;
  readonly key?: string | undefined;
  readonly order?: string | undefined;
  readonly limit?: string | undefined;
  readonly offset?: string | undefined;
}

/** Who reads: the merchant whose transactions these are, and the wire dialect of the answer. */
export interface TransactionReader {
  readonly merchantId: string;
  readonly wireDialect: WireDialect;
}

const DATE_FIELDS = ['created_at', 'settled_at'] as const;

/** The spec dialect's status filter: the card statuses, and the two only checks reach (domain/ach.ts ACH_STATUS_NAMES). */
const SPEC_FILTER_STATUSES = [...TRANSACTION_STATUSES, 'originated', 'returned'] as const;

/** accept.blue: settled_date leaves out transactions processed more than this before the day. */
const SETTLED_DATE_LOOKBACK_MS = 30 * DAY_MS;

/** The filters and page a list query asks for, read in `dialect`. */
export function parseListQuery(query: TransactionListQuery, dialect: WireDialect): { filters: TransactionFilters; page: { limit: number; offset: number } } {
  const statuses = commaList<string>('status', query.status, dialect === 'acceptblue' ? ACCEPTBLUE_TRANSACTION_STATUSES : SPEC_FILTER_STATUSES);
  const type: TransactionType | null = oneOf('type', query.type, TRANSACTION_TYPES);
  const paymentTypes = commaList('payment_type', query.payment_type, PAYMENT_TYPES);
  const dateField = oneOf('date_field', query.date_field, DATE_FIELDS) ?? 'created_at';
  const dateFromMs = timeBound('date_from', query.date_from, false, dialect);
  const dateBeforeMs = timeBound('date_to', query.date_to, true, dialect);
  const createdFromMs = maxOf([dateField === 'created_at' ? dateFromMs : null, timeBound('created_from', query.created_from, false, 'spec', false)]);
  const createdBeforeMs = minOf([dateField === 'created_at' ? dateBeforeMs : null, timeBound('created_to', query.created_to, true, 'spec', false)]);
  // A range that ends before it starts is a mistake, refused as the transfer and event lists refuse it.
  if (createdFromMs !== null && createdBeforeMs !== null && createdFromMs >= createdBeforeMs) {
    refuseParameter('date_to', 'the date range ends before it starts: date_from/created_from must not be after date_to/created_to');
  }
  if (dateField === 'settled_at' && dateFromMs !== null && dateBeforeMs !== null && dateFromMs >= dateBeforeMs) {
    refuseParameter('date_to', 'the date range ends before it starts: date_from must not be after date_to');
  }
  let settledFromMs = dateField === 'settled_at' ? dateFromMs : null;
  let settledBeforeMs = dateField === 'settled_at' ? dateBeforeMs : null;
  let processedFromMs = createdFromMs;
  if (query.settled_date !== undefined) {
    const day = utcDay(query.settled_date) ?? refuseParameter('settled_date', 'settled_date must be a date (YYYY-MM-DD)');
    settledFromMs = maxOf([settledFromMs, day[0]]);
    settledBeforeMs = minOf([settledBeforeMs, day[1]]);
    processedFromMs = maxOf([processedFromMs, day[0] - SETTLED_DATE_LOOKBACK_MS]);
  }
  const filters: TransactionFilters = {
    states: statuses === null ? null : statesShowing(statuses, dialect),
    // A check shows the status of its ACH entry, the same in both dialects.
    achStates: statuses === null ? null : achStatesShowing(statuses),
    type,
    paymentTypes,
    createdFromMs: processedFromMs,
    createdBeforeMs,
    settledFromMs,
    settledBeforeMs,
    payLinkKey: query.key ?? null,
    order: orderOf(query.order, dialect),
  };
  return { filters, page: page(query) };
}

/** What a list's scope is called when it is not the merchant's (404). */
function missing(scope: TransactionScope): string {
  switch (scope.of) {
    case 'merchant':
      return 'transactions not found';
    case 'batch':
      return `batch ${scope.batchId} not found`;
    case 'customer':
      return `customer ${scope.customerPk} not found`;
    case 'schedule':
      return `recurring schedule ${scope.schedulePk} not found`;
  }
}

/**
 * A list as a JSON array text: in the accept.blue dialect each item is the
 * bare transaction object; in the spec dialect each item is the charge
 * answer, the merchant's list with the transfers each charge funds (the
 * other lists never showed them, and the spec dialect's answers stay as
 * they were).
 */
export async function transactionListJson(
  deps: Pick<Service, 'db'>,
  reader: TransactionReader,
  scope: TransactionScope,
  query: TransactionListQuery,
): Promise<string> {
  const { filters, page } = parseListQuery(query, reader.wireDialect);
  const fundedMax = reader.wireDialect === 'acceptblue' || scope.of === 'merchant' ? FUNDED_TRANSFERS_SHOWN_MAX : 0;
  const found = await listFundedTransactions(deps.db, { merchantId: reader.merchantId, scope, filters, page, fundedMax });
  if (found === undefined) fail('not_found', missing(scope));
  const items =
    reader.wireDialect === 'acceptblue'
      ? found.map(({ row, funded }) => JSON.stringify(renderTransaction(row, funded, 'acceptblue')))
      : found.map(({ row, funded }) => JSON.stringify(renderCharge(row, funded)));
  return `[${items.join(',')}]`;
}

/** GET /api/v2/transactions/:id in the accept.blue dialect: the bare transaction object (status_details at its top level), as JSON text. */
export async function acceptBlueTransactionJson(deps: Pick<Service, 'db'>, merchantId: string, id: string): Promise<string> {
  const pk = parseReferenceNumber(id);
  // Any transaction: a charge, a refund or a verification (docs/api-decisions.md section 10).
  const found = pk === null ? undefined : await readFundedTransaction(deps.db, { pk, merchantId, fundedMax: FUNDED_TRANSFERS_SHOWN_MAX });
  if (found === undefined) fail('not_found', `transaction ${id.slice(0, 40)} not found`);
  return JSON.stringify(renderTransaction(found.row, found.funded, 'acceptblue'));
}
