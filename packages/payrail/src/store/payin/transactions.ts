// Card transactions as the API shows them: a transaction (a charge, a refund
// or a verification) or the merchant's list, each with the transfers it
// funds. Queries: one read transaction each, the statements of the render.
import type { Db } from '../db.ts';
import { getTransaction, listTransactions, type TransactionFilters, type TransactionRow } from '../transactions.ts';
import { type FundedTransferRow, fundedTransfers } from '../transfers.ts';

export interface FundedTransaction {
  readonly row: TransactionRow;
  readonly funded: FundedTransferRow[];
}

/** A transaction of the merchant with (at most `fundedMax` of) the transfers it funds; undefined when the merchant has none so numbered. */
export function readFundedTransaction(db: Db, query: { pk: number; merchantId: string; fundedMax: number }): Promise<FundedTransaction | undefined> {
  return db.read(async (tx) => {
    const row = await getTransaction(tx, query.pk, query.merchantId);
    return row === undefined ? undefined : { row, funded: await fundedTransfers(tx, query.pk, query.fundedMax) };
  });
}

/** A page of the merchant's transactions, newest first, each with the transfers it funds. */
export function listFundedTransactions(
  db: Db,
  query: { merchantId: string; filters: TransactionFilters; page: { limit: number; offset: number }; fundedMax: number },
): Promise<FundedTransaction[]> {
  return db.read(async (tx) => {
    const rows = await listTransactions(tx, query.merchantId, query.filters, query.page);
    const found: FundedTransaction[] = [];
    for (const row of rows) {
      // Only a charge that funds transfers has any to show (custom_fields).
      found.push({ row, funded: row.linked_cents > 0 ? await fundedTransfers(tx, row.pk, query.fundedMax) : [] });
    }
    return found;
  });
}
