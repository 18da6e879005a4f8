// A customer made from a transaction (accept.blue's
// POST /customers/create-from-transaction): the transaction's billing
// address and customer details fill what the request leaves out, and the
// transaction is linked to the new customer when it had none. One
// transaction: a refusal leaves no customer and no Idempotency-Key.
import { getCharge, type ChargeRow } from '../charges.ts';
import { command, Refusal } from '../command.ts';
import { insertCustomer, type CustomerFields, type CustomerRow } from '../customers.ts';
import { byKey } from '../by-key.ts';
import type { Db, Tx } from '../db.ts';
import { createUnderKey, type CreateKey, type KeyedAnswer } from './keyed-create.ts';

export type FromChargeRefusal = { readonly kind: 'no-transaction' } | { readonly kind: 'no-identifier' };

export interface FromChargeInput<V> {
  readonly key: CreateKey | null;
  readonly merchantId: string;
  readonly chargePk: number;
  /** The customer's fields from the transaction (the flow reads it) and the request, request first; null identifier: the transaction must give one. */
  readonly fieldsOf: (charge: ChargeRow) => Omit<CustomerFields, 'identifier'> & { identifier: string | null };
  readonly nowMs: number;
  readonly render: (row: CustomerRow) => V;
}

/** Links the charge to the customer unless it is linked already (an earlier link stands). */
async function linkUnlinkedCharge(tx: Tx, merchantId: string, chargePk: number, customerPk: number): Promise<void> {
  await tx.run(`UPDATE charges SET customer_pk = ? WHERE ${byKey('pk', 'merchant_id = ? AND customer_pk IS NULL')}`, [customerPk, chargePk, merchantId]);
}

export function createCustomerFromCharge<V>(db: Db, input: FromChargeInput<V>): Promise<KeyedAnswer<V> | FromChargeRefusal> {
  return command(db, (tx) =>
    createUnderKey(tx, input.key, async () => {
      const charge = await getCharge(tx, input.chargePk, input.merchantId);
      if (charge === undefined) throw new Refusal<FromChargeRefusal>({ kind: 'no-transaction' });
      const fields = input.fieldsOf(charge);
      if (fields.identifier === null) throw new Refusal<FromChargeRefusal>({ kind: 'no-identifier' });
      const customer = await insertCustomer(tx, input.merchantId, { ...fields, identifier: fields.identifier }, input.nowMs);
      await linkUnlinkedCharge(tx, input.merchantId, charge.pk, customer.pk);
      return input.render(customer);
    }),
  );
}
