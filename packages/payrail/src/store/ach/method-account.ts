// The bank account of a saved check payment method (migration 029:
// payment_methods.method_type 'check'), as a `pm-` check charge or credit
// takes it: sealed, with what its ACH entry needs. Unknown, deleted, card and
// other merchants' methods read alike (absent).
import type { SecCode } from '../../domain/ach.ts';
import type { Db, Tx } from '../db.ts';

export interface MethodAccount {
  readonly pk: number;
  readonly customer_pk: number;
  /** The source the account was sealed for (crypto/card-cipher.ts context). */
  readonly source_id: string;
  readonly card_number_enc: Buffer;
  readonly last4: string;
  readonly name: string;
  readonly routing_number: string;
  /** As it was saved. */
  readonly account_type: string;
  readonly sec_code: SecCode;
}

/** Whether method `pk` of the merchant is a live check payment method: a `pm-` source is a check when it is. */
export async function isCheckMethod(db: Db, merchantId: string, pk: number): Promise<boolean> {
  const row = await db.read((tx) =>
    tx.get("SELECT 1 AS one FROM payment_methods WHERE pk = ? AND merchant_id = ? AND method_type = 'check' AND deleted_at_ms IS NULL", [pk, merchantId]),
  );
  return row !== undefined;
}

/** The live check method `pk` of the merchant, sealed account included; undefined otherwise. */
export async function getMethodAccount(tx: Tx, merchantId: string, pk: number): Promise<MethodAccount | undefined> {
  const row = await tx.get<Record<string, unknown>>(
    `SELECT pk, customer_pk, source_id, card_number_enc, last4, name, routing_number, account_type, sec_code FROM payment_methods
     WHERE pk = ? AND merchant_id = ? AND method_type = 'check' AND deleted_at_ms IS NULL`,
    [pk, merchantId],
  );
  if (row === undefined) return undefined;
  return {
    pk: Number(row.pk),
    customer_pk: Number(row.customer_pk),
    source_id: String(row.source_id),
    card_number_enc: row.card_number_enc as Buffer,
    last4: String(row.last4),
    name: String(row.name ?? ''),
    routing_number: String(row.routing_number ?? ''),
    account_type: String(row.account_type ?? 'checking'),
    sec_code: (row.sec_code ?? 'WEB') as SecCode,
  };
}

export function readMethodAccount(db: Db, merchantId: string, pk: number): Promise<MethodAccount | undefined> {
  return db.read((tx) => getMethodAccount(tx, merchantId, pk));
}
