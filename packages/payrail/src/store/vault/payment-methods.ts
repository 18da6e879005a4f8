// Saved cards of stored customers: the commands and queries of the saved-card
// flows (flows/vault/customers.ts). A refused save rolls back whole (the
// nonce stays usable, the Idempotency-Key unreserved).
import { command, Refusal } from '../command.ts';
import { getCustomer } from '../customers.ts';
import type { Db } from '../db.ts';
import { consumeNonce, getNonce, type NonceRow } from '../nonces.ts';
import {
  countPaymentMethods,
  deletePaymentMethod,
  getPaymentMethod,
  insertPaymentMethod,
  listPaymentMethods,
  updatePaymentMethod,
  type NewPaymentMethod,
  type PaymentMethodRow,
} from '../payment-methods.ts';
import { stopSchedulesOf } from '../schedules.ts';
import { createUnderKey, type CreateKey, type KeyedAnswer } from './keyed-create.ts';
import type { Page } from './customers.ts';

/** Why a nonce cannot be taken: unknown or another source's, used, expired, or sent with another expiry than tokenized. */
export type NonceProblem = 'unknown' | 'used' | 'expired' | 'expiry-mismatch';

export type SaveCardRefusal =
  | { readonly kind: 'no-customer' }
  | { readonly kind: 'too-many' }
  | { readonly kind: 'nonce'; readonly problem: NonceProblem }
  | { readonly kind: 'last4-mismatch' }
  | { readonly kind: 'duplicate'; readonly of: number };

/** The card of a taken nonce, sealed for keeping (the flow holds the keys). */
export interface SealedCard {
  readonly card_number_enc: Buffer;
  readonly fingerprint: string;
}

export interface SaveCardInput<V> {
  readonly key: CreateKey | null;
  readonly merchantId: string;
  readonly sourceId: string;
  readonly customerPk: number;
  readonly methodsMax: number;
  readonly nonceHash: string;
  readonly expiryMonth: number;
  readonly expiryYear: number;
  /** The last 4 digits the caller showed, to be the nonce's card's. */
  readonly last4: string | undefined;
  readonly name: string | null;
  readonly nowMs: number;
  readonly seal: (nonce: NonceRow) => SealedCard;
  readonly render: (row: PaymentMethodRow) => V;
}

/**
 * Consumes the nonce and saves its card for the customer, under the key (if
 * any). The count bound is checked first, not atomically: racing saves may
 * pass it by a few.
 */
export function saveCardOnce<V>(db: Db, input: SaveCardInput<V>): Promise<KeyedAnswer<V> | SaveCardRefusal> {
  const { merchantId, sourceId, customerPk, nowMs } = input;
  const refuse = (refusal: SaveCardRefusal): never => {
    throw new Refusal(refusal);
  };
  return command(db, (tx) =>
    createUnderKey(tx, input.key, async () => {
      if ((await getCustomer(tx, merchantId, customerPk)) === undefined) refuse({ kind: 'no-customer' });
      if ((await countPaymentMethods(tx, customerPk)) >= input.methodsMax) refuse({ kind: 'too-many' });
      const nonce = await getNonce(tx, input.nonceHash);
      if (nonce === undefined || nonce.source_id !== sourceId) return refuse({ kind: 'nonce', problem: 'unknown' });
      if (nonce.used_at_ms !== null) refuse({ kind: 'nonce', problem: 'used' });
      if (nonce.expires_at_ms <= nowMs) refuse({ kind: 'nonce', problem: 'expired' });
      if (nonce.expiry_month !== input.expiryMonth || nonce.expiry_year !== input.expiryYear) refuse({ kind: 'nonce', problem: 'expiry-mismatch' });
      if (!(await consumeNonce(tx, input.nonceHash, sourceId, nowMs))) refuse({ kind: 'nonce', problem: 'used' });
      if (input.last4 !== undefined && input.last4 !== nonce.last4) refuse({ kind: 'last4-mismatch' });
      const method: NewPaymentMethod = {
        merchant_id: merchantId,
        customer_pk: customerPk,
        source_id: sourceId,
        ...input.seal(nonce),
        card_type: nonce.card_type,
        last4: nonce.last4,
        bin: nonce.bin,
        expiry_month: input.expiryMonth,
        expiry_year: input.expiryYear,
        name: input.name,
      };
      const saved = await insertPaymentMethod(tx, method, nowMs);
      if ('duplicateOf' in saved) return refuse({ kind: 'duplicate', of: saved.duplicateOf });
      return input.render(saved.created);
    }),
  );
}

/** The customer's saved cards; undefined when the customer is not the merchant's. */
export function queryCustomerMethods(db: Db, input: { merchantId: string; customerPk: number; page: Page }): Promise<PaymentMethodRow[] | undefined> {
  return db.read(async (tx) => {
    if ((await getCustomer(tx, input.merchantId, input.customerPk)) === undefined) return undefined;
    return listPaymentMethods(tx, input.merchantId, input.customerPk, input.page);
  });
}

export function queryPaymentMethod(db: Db, input: { merchantId: string; pk: number }): Promise<PaymentMethodRow | undefined> {
  return db.read((tx) => getPaymentMethod(tx, input.merchantId, input.pk));
}

/** The updated method, or undefined when it is not the merchant's (nothing changed). */
export function editPaymentMethod(
  db: Db,
  input: {
    merchantId: string;
    pk: number;
    fields: { name?: string | undefined; expiry_month?: number | undefined; expiry_year?: number | undefined };
    nowMs: number;
  },
): Promise<PaymentMethodRow | undefined> {
  return db.write((tx) => updatePaymentMethod(tx, input.merchantId, input.pk, input.fields, input.nowMs));
}

/** Deletes the method (its card data erased) and stops the schedules charging it; false when it is not the merchant's. */
export function erasePaymentMethod(db: Db, input: { merchantId: string; pk: number; nowMs: number }): Promise<boolean> {
  return command(db, async (tx) => {
    if (!(await deletePaymentMethod(tx, input.merchantId, input.pk, input.nowMs))) throw new Refusal(false);
    await stopSchedulesOf(tx, input.merchantId, { methodPk: input.pk }, input.nowMs);
    return true;
  });
}
