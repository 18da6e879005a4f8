// Saved checks (accept.blue's NewCheckPM): the commands of the check
// payment method flows (flows/vault/check-methods.ts). The flow seals the
// account number and fingerprints it; a refused save rolls back whole (the
// Idempotency-Key unreserved).
import { command, Refusal } from '../command.ts';
import { getCustomer } from '../customers.ts';
import type { Db } from '../db.ts';
import {
  CHECK_EXPIRY,
  countPaymentMethods,
  getPaymentMethod,
  getSealedCheckAccount,
  insertCheckMethod,
  sameCardAndExpiry,
  updateCheckMethod,
  type CheckMethodFields,
  type NewCheckMethod,
  type PaymentMethodRow,
} from '../payment-methods.ts';
import { createUnderKey, type CreateKey, type KeyedAnswer } from './keyed-create.ts';

export type SaveCheckRefusal = { readonly kind: 'no-customer' } | { readonly kind: 'too-many' } | { readonly kind: 'duplicate'; readonly of: PaymentMethodRow };

export interface SaveCheckInput<V> {
  readonly key: CreateKey | null;
  readonly methodsMax: number;
  /** The method's columns, its account number sealed and fingerprinted by the flow. */
  readonly method: NewCheckMethod;
  readonly nowMs: number;
  readonly render: (row: PaymentMethodRow) => V;
}

/** Saves the check for the customer under the key (if any); the count bound is checked first, not atomically (as for cards). */
export function saveCheckOnce<V>(db: Db, input: SaveCheckInput<V>): Promise<KeyedAnswer<V> | SaveCheckRefusal> {
  const { method, nowMs } = input;
  const refuse = (refusal: SaveCheckRefusal): never => {
    throw new Refusal(refusal);
  };
  return command(db, (tx) =>
    createUnderKey(tx, input.key, async () => {
      if ((await getCustomer(tx, method.merchant_id, method.customer_pk)) === undefined) refuse({ kind: 'no-customer' });
      if ((await countPaymentMethods(tx, method.customer_pk)) >= input.methodsMax) refuse({ kind: 'too-many' });
      const saved = await insertCheckMethod(tx, method, nowMs);
      if ('duplicateOf' in saved) {
        const existing = await getPaymentMethod(tx, method.merchant_id, saved.duplicateOf);
        if (existing === undefined) throw new Error(`duplicate payment method ${saved.duplicateOf} is not live`);
        return refuse({ kind: 'duplicate', of: existing });
      }
      return input.render(saved.created);
    }),
  );
}

/** A check's edit: changed, absent (not the merchant's live check), or the new routing number makes it another method's account. */
export type EditCheckAnswer =
  | { readonly kind: 'changed'; readonly row: PaymentMethodRow }
  | { readonly kind: 'absent' }
  | { readonly kind: 'duplicate'; readonly of: PaymentMethodRow };

export interface EditCheckInput {
  readonly merchantId: string;
  readonly pk: number;
  readonly fields: Omit<CheckMethodFields, 'fingerprint'>;
  /** The account's fingerprint under `routingNumber` (the flow opens the sealed number with its keys). */
  readonly fingerprintOf: (sealed: { card_number_enc: Buffer; source_id: string }, routingNumber: string) => string;
  readonly nowMs: number;
}

/** Changes the saved check; a new routing number that makes it an account the customer has saved already is refused, nothing changed. */
export function editCheckMethod(db: Db, input: EditCheckInput): Promise<EditCheckAnswer> {
  const { merchantId, pk, fields } = input;
  return db.write(async (tx): Promise<EditCheckAnswer> => {
    const current = await getPaymentMethod(tx, merchantId, pk);
    if (current === undefined || current.method_type !== 'check') return { kind: 'absent' };
    let fingerprint: string | undefined;
    if (fields.routing_number !== undefined && fields.routing_number !== current.routing_number) {
      const sealed = await getSealedCheckAccount(tx, merchantId, pk);
      if (sealed === undefined) return { kind: 'absent' };
      fingerprint = input.fingerprintOf(sealed, fields.routing_number);
      const same = await sameCardAndExpiry(tx, current.customer_pk, fingerprint, CHECK_EXPIRY, CHECK_EXPIRY);
      if (same !== undefined && same.pk !== pk) return { kind: 'duplicate', of: same };
    }
    const row = await updateCheckMethod(tx, merchantId, pk, { ...fields, fingerprint }, input.nowMs);
    return row === undefined ? { kind: 'absent' } : { kind: 'changed', row };
  });
}
