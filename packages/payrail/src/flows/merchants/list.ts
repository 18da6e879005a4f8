// `payrail merchant list`: every merchant with its balance, overdraft and
// available funds, oldest first, a bounded page at a time (`--after` the last
// id of the previous page). A read: it runs on a read-only store.
import { overdraftCentsOf } from '../../domain/ledger.ts';
import { fail } from '../../errors.ts';
import type { Db } from '../../store/db.ts';
import { merchantsAfter } from '../../store/merchants/list.ts';

export const MERCHANT_LIST_LIMIT_DEFAULT = 100;
export const MERCHANT_LIST_LIMIT_MAX = 10_000;

export interface ListedMerchant {
  readonly merchant_id: string;
  readonly name: string;
  readonly balance_cents: number;
  readonly overdraft_cents: number;
  readonly available_cents: number;
  readonly payouts_must_link: boolean;
  readonly created_at: string;
}

export interface MerchantList {
  readonly merchants: ListedMerchant[];
  /** More merchants follow: ask again with --after the last id. */
  readonly has_more: boolean;
}

export async function listAllMerchants(db: Db, options: { limit?: number; after?: string | null } = {}): Promise<MerchantList> {
  const limit = options.limit ?? MERCHANT_LIST_LIMIT_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MERCHANT_LIST_LIMIT_MAX)
    fail('invalid_request', `limit must be an integer from 1 to ${MERCHANT_LIST_LIMIT_MAX}`);
  const after = options.after ?? null;
  const rows = await merchantsAfter(db, after, limit + 1);
  if (rows === undefined) fail('not_found', `merchant ${after} not found`);
  const merchants = rows.slice(0, limit).map((row): ListedMerchant => {
    const balanceCents = Number(row.balance_cents ?? 0);
    const overdraftCents = overdraftCentsOf(row.floor_cents === null ? null : Number(row.floor_cents));
    return {
      merchant_id: row.id,
      name: row.name,
      balance_cents: balanceCents,
      overdraft_cents: overdraftCents,
      available_cents: balanceCents + overdraftCents,
      payouts_must_link: Number(row.payouts_must_link) === 1,
      created_at: new Date(Number(row.created_at_ms)).toISOString(),
    };
  });
  return { merchants, has_more: rows.length > limit };
}
