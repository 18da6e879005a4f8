// Card transactions as the API shows them: a transaction (a charge, a refund
// or a verification) or a page of a list (the merchant's, a batch's, a stored
// customer's or a schedule's), each with the transfers it funds. Queries: one
// read transaction each, the statements of the render.
import { getBatch } from '../batches.ts';
import { getCustomer } from '../customers.ts';
import type { Db, Tx } from '../db.ts';
import { getSchedule } from '../schedules.ts';
import { getTransaction, listTransactions, type TransactionFilters, type TransactionRow, type TransactionScope } from '../transactions.ts';
import { type FundedTransferRow, fundedTransfers, fundedTransfersOfCharges } from '../transfers.ts';

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

/** Whether the batch, customer or schedule a list reads is the merchant's (another merchant's reads as absent). */
async function scopeIsTheMerchants(tx: Tx, merchantId: string, scope: TransactionScope): Promise<boolean> {
  switch (scope.of) {
    case 'merchant':
      return true;
    case 'batch':
      return (await getBatch(tx, merchantId, scope.batchId)) !== undefined;
    case 'customer':
      return (await getCustomer(tx, merchantId, scope.customerPk)) !== undefined;
    case 'schedule':
      return (await getSchedule(tx, merchantId, scope.schedulePk)) !== undefined;
  }
}

/**
 * A page of the scope's transactions matching the filters, each with (at
 * most `fundedMax` of) the transfers it funds (0: none read); undefined when
 * the batch, customer or schedule is not the merchant's.
 */
export function listFundedTransactions(
  db: Db,
  query: { merchantId: string; scope: TransactionScope; filters: TransactionFilters; page: { limit: number; offset: number }; fundedMax: number },
): Promise<FundedTransaction[] | undefined> {
  return db.read(async (tx) => {
    if (!(await scopeIsTheMerchants(tx, query.merchantId, query.scope))) return undefined;
    const rows = await listTransactions(tx, query.merchantId, query.scope, query.filters, query.page);
    // Only a charge that funds transfers has any to show (custom_fields): one read for those of the page.
    const funding = query.fundedMax > 0 ? rows.filter((row) => row.linked_cents > 0).map((row) => row.pk) : [];
    const funded = await fundedTransfersOfCharges(tx, funding, query.fundedMax);
    const found: FundedTransaction[] = rows.map((row) => ({ row, funded: funded.get(row.pk) ?? [] }));
    return found;
  });
}
