// The merchant's transfers, newest first (GET /api/transfers, a Payrail
// extension: docs/api-decisions.md sections 12 and 14). Each item is the
// status result (the same statusViewOf as GET /api/status/:id) plus what the
// merchant sent: amount, receiver_phone, the corridor and the creation time.
// Cursor pagination: `starting_after` names the last transfer of the
// previous page, so pages never skip or repeat a transfer while new ones
// arrive.
import { isoTime, parseIsoTimestamp, timestampRefusal } from '../../domain/iso-time.ts';
import { formatCents } from '../../domain/money.ts';
import { isTransferId } from '../../domain/references.ts';
import { STATE } from '../../domain/transfer-states.ts';
import { fail } from '../../errors.ts';
import type { Service } from '../../service.ts';
import { readTransferPage } from '../../store/transfers/list.ts';
import { pageCursor, pageLimit } from '../common/list-paging.ts';
import { type StatusView, statusViewOf } from './status.ts';

export const TRANSFER_LIST_LIMIT_DEFAULT = 10;
export const TRANSFER_LIST_LIMIT_MAX = 100;
/** The states a list can be filtered by: the specification's public states. */
export const LISTED_STATES: readonly number[] = [STATE.new, STATE.processing, STATE.succeeded, STATE.failed];

/** The query as it arrives (query strings are text; the schema has checked their form). */
export interface TransferListParams {
  readonly state?: string | undefined;
  readonly created_from?: string | undefined;
  readonly created_to?: string | undefined;
  readonly limit?: string | undefined;
  readonly starting_after?: string | undefined;
  readonly ending_before?: string | undefined;
}

export interface TransferListItem extends StatusView {
  /** Dollars as a decimal string, as the transfer was sent. */
  readonly amount: string;
  readonly receiver_phone: string;
  readonly service: string;
  readonly receiver_country: string;
  readonly receiver_currency: string;
  readonly created_at: string;
}

export interface TransferListPage {
  readonly transfers: TransferListItem[];
  readonly has_more: boolean;
}

export async function listMerchantTransfers(service: Service, merchantId: string, params: TransferListParams): Promise<TransferListPage> {
  const state = optionalState(params.state);
  const createdFromMs = optionalTimestamp('created_from', params.created_from);
  const createdToMs = optionalTimestamp('created_to', params.created_to);
  if (createdFromMs !== null && createdToMs !== null && createdFromMs > createdToMs) fail('invalid_request', 'created_from must not be after created_to');
  const limit = pageLimit(params.limit, TRANSFER_LIST_LIMIT_DEFAULT, TRANSFER_LIST_LIMIT_MAX);
  const cursor = pageCursor(params);
  if (cursor !== null && !isTransferId(cursor.value)) fail('invalid_request', `${cursor.name} must be a transfer id (digits)`);

  // One row more than asked tells whether another page follows (in the direction paged).
  const page = await readTransferPage(service.db, { merchantId, state, createdFromMs, createdToMs, cursor, limit: limit + 1 });
  if (page.kind === 'unknown_cursor') fail('invalid_request', `${cursor!.name} ${cursor!.value} is not one of your transfers`);
  const found = page.rows;
  const rows = found.slice(0, limit);
  // A previous page comes nearest first: turned newest first, as every page is.
  if (cursor?.name === 'ending_before') rows.reverse();
  const serverTime = isoTime(service.clock.nowMs());
  const transfers = rows.map(
    (row): TransferListItem => ({
      ...statusViewOf(service, row.id, row, serverTime),
      amount: formatCents(Number(row.amount_cents)),
      receiver_phone: row.receiver_phone,
      service: row.service,
      receiver_country: row.receiver_country,
      receiver_currency: row.receiver_currency,
      created_at: isoTime(Number(row.created_at_ms)),
    }),
  );
  return { transfers, has_more: found.length > limit };
}

function optionalState(text: string | undefined): number | null {
  if (text === undefined) return null;
  const state = /^-?[0-9]{1,3}$/.test(text) ? Number(text) : Number.NaN;
  if (!LISTED_STATES.includes(state)) fail('invalid_request', `state must be one of ${LISTED_STATES.join(', ')}`);
  return state;
}

function optionalTimestamp(field: string, text: string | undefined): number | null {
  if (text === undefined) return null;
  const ms = parseIsoTimestamp(text);
  if (ms === null) fail('invalid_request', timestampRefusal(field, text));
  return ms;
}
