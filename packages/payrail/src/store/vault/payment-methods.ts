// Saved cards of stored customers: the commands and queries of the saved-card
// flows (flows/vault/customers.ts). A refused save rolls back whole (the
// nonce stays usable, the Idempotency-Key unreserved).
import type { Secret } from '../../domain/secret.ts';
import { command, Refusal } from '../command.ts';
import { getCustomer } from '../customers.ts';
import type { Db, Tx } from '../db.ts';
import { consumeNonce, getNonce, type NonceRow } from '../nonces.ts';
import { type CardKeys, type CardRefusal, takeCardSourceIn } from '../payin/card-source.ts';
import {
  countPaymentMethods,
  deletePaymentMethod,
  getFingerprint,
  getPaymentMethod,
  insertPaymentMethod,
  listMerchantPaymentMethods,
  listPaymentMethods,
  sameCardAndExpiry,
  updatePaymentMethod,
  type NewPaymentMethod,
  type PaymentMethodRow,
} from '../payment-methods.ts';
import { hasActiveSchedules, listMethodSchedules, stopSchedulesOf, type ScheduleRow } from '../schedules.ts';
import { createUnderKey, type CreateKey, type KeyedAnswer } from './keyed-create.ts';
import type { EraseAnswer, Page } from './customers.ts';

/** Why a nonce cannot be taken: unknown or another source's, used, expired, or sent with another expiry than tokenized. */
export type NonceProblem = 'unknown' | 'used' | 'expired' | 'expiry-mismatch';

export type SaveCardRefusal =
  | { readonly kind: 'no-customer' }
  | { readonly kind: 'too-many' }
  | { readonly kind: 'nonce'; readonly problem: NonceProblem }
  | { readonly kind: 'last4-mismatch' }
  | { readonly kind: 'card'; readonly refusal: CardRefusal }
  | { readonly kind: 'duplicate'; readonly of: PaymentMethodRow };

/** A card number sealed for keeping, with its fingerprint (the flow holds the keys). */
export interface SealedCard {
  readonly card_number_enc: Buffer;
  readonly fingerprint: string;
}

/**
 * Where the saved card comes from: a nonce (consumed; its number opened by
 * the flow's `open`), or the card of an earlier approved transaction of the
 * merchant (`ref-`; its expiry when none is sent).
 */
export type SavedCardSource =
  | { readonly kind: 'nonce'; readonly nonceHash: string; readonly open: (nonce: NonceRow) => Secret<string> }
  | { readonly kind: 'reference'; readonly chargePk: number; readonly keys: CardKeys };

export interface SaveCardInput<V> {
  readonly key: CreateKey | null;
  readonly merchantId: string;
  readonly sourceId: string;
  readonly customerPk: number;
  readonly methodsMax: number;
  readonly card: SavedCardSource;
  /** Required for a nonce; a reference's card keeps its own when none is sent. */
  readonly expiryMonth: number | undefined;
  readonly expiryYear: number | undefined;
  /** The last 4 digits the caller showed, to be the card's. */
  readonly last4: string | undefined;
  readonly name: string | null;
  readonly avsAddress: string | null;
  readonly avsZip: string | null;
  readonly nowMs: number;
  readonly seal: (number: Secret<string>) => SealedCard;
  readonly render: (row: PaymentMethodRow) => V;
}

/** What a saved card keeps of its source's card. */
interface TakenCard {
  readonly number: Secret<string>;
  readonly card_type: string;
  readonly last4: string;
  readonly bin: string;
  readonly expiry_month: number;
  readonly expiry_year: number;
  /** A referenced transaction's network transaction id: the saved card's first authorization (a nonce's card has none yet). */
  readonly network_transaction_id: string | null;
}

/** Consumes the nonce (checks in the order a charge makes them) or reads the referenced card; refuses by throwing. */
async function takeCard<V>(tx: Tx, input: SaveCardInput<V>, refuse: (refusal: SaveCardRefusal) => never): Promise<TakenCard> {
  const { sourceId, nowMs, card } = input;
  if (card.kind === 'reference') {
    const payer = { merchantId: input.merchantId, sourceId };
    const request = {
      source: { kind: 'reference' as const, chargePk: card.chargePk },
      nonceHash: null,
      expiryMonth: input.expiryMonth,
      expiryYear: input.expiryYear,
    };
    const taken = await takeCardSourceIn(tx, card.keys, payer, { ...request, billing: undefined }, nowMs);
    if ('kind' in taken) return refuse({ kind: 'card', refusal: taken });
    const { number, cardType, last4, bin, expiryMonth, expiryYear } = taken;
    return { number, card_type: cardType, last4, bin, expiry_month: expiryMonth, expiry_year: expiryYear, network_transaction_id: taken.networkTransactionId };
  }
  const nonce = await getNonce(tx, card.nonceHash);
  if (nonce === undefined || nonce.source_id !== sourceId) return refuse({ kind: 'nonce', problem: 'unknown' });
  if (nonce.used_at_ms !== null) refuse({ kind: 'nonce', problem: 'used' });
  if (nonce.expires_at_ms <= nowMs) refuse({ kind: 'nonce', problem: 'expired' });
  if (nonce.expiry_month !== input.expiryMonth || nonce.expiry_year !== input.expiryYear) refuse({ kind: 'nonce', problem: 'expiry-mismatch' });
  if (!(await consumeNonce(tx, card.nonceHash, sourceId, nowMs))) refuse({ kind: 'nonce', problem: 'used' });
  const { card_type, last4, bin, expiry_month, expiry_year } = nonce;
  return { number: card.open(nonce), card_type, last4, bin, expiry_month, expiry_year, network_transaction_id: null };
}

/**
 * Takes the card (a nonce consumed, or an earlier transaction's card) and
 * saves it for the customer, under the key (if any). The count bound is checked first, not atomically: racing saves may
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
      const card = await takeCard(tx, input, refuse);
      if (input.last4 !== undefined && input.last4 !== card.last4) refuse({ kind: 'last4-mismatch' });
      const method: NewPaymentMethod = {
        merchant_id: merchantId,
        customer_pk: customerPk,
        source_id: sourceId,
        ...input.seal(card.number),
        card_type: card.card_type,
        last4: card.last4,
        bin: card.bin,
        expiry_month: card.expiry_month,
        expiry_year: card.expiry_year,
        name: input.name,
        avs_address: input.avsAddress,
        avs_zip: input.avsZip,
        network_transaction_id: card.network_transaction_id,
      };
      const saved = await insertPaymentMethod(tx, method, nowMs);
      if ('duplicateOf' in saved) {
        const existing = await getPaymentMethod(tx, merchantId, saved.duplicateOf);
        if (existing === undefined) throw new Error(`duplicate payment method ${saved.duplicateOf} is not live`);
        return refuse({ kind: 'duplicate', of: existing });
      }
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

/** The merchant's saved cards, whoever's they are. */
export function queryMerchantMethods(db: Db, input: { merchantId: string; page: Page }): Promise<PaymentMethodRow[]> {
  return db.read((tx) => listMerchantPaymentMethods(tx, input.merchantId, input.page));
}

/** The schedules charging the method; undefined when the method is not the merchant's. */
export function queryMethodSchedules(db: Db, input: { merchantId: string; pk: number; limit: number }): Promise<ScheduleRow[] | undefined> {
  return db.read(async (tx) => {
    if ((await getPaymentMethod(tx, input.merchantId, input.pk)) === undefined) return undefined;
    return listMethodSchedules(tx, input.merchantId, input.pk, input.limit);
  });
}

export interface MethodFields {
  name?: string | undefined;
  expiry_month?: number | undefined;
  expiry_year?: number | undefined;
  avs_address?: string | undefined;
  avs_zip?: string | undefined;
}

/** An edit's answer: the method as changed, absent (not the merchant's), or the customer has this card with the new expiry already. */
export type EditMethodAnswer =
  | { readonly kind: 'changed'; readonly row: PaymentMethodRow }
  | { readonly kind: 'absent' }
  | { readonly kind: 'duplicate'; readonly of: PaymentMethodRow };

/** Changes the method; a new expiry that another method of its customer has for the same card is refused (nothing changed). */
export function editPaymentMethod(db: Db, input: { merchantId: string; pk: number; fields: MethodFields; nowMs: number }): Promise<EditMethodAnswer> {
  const { merchantId, pk, fields } = input;
  return db.write(async (tx): Promise<EditMethodAnswer> => {
    const current = await getPaymentMethod(tx, merchantId, pk);
    if (current === undefined) return { kind: 'absent' };
    const month = fields.expiry_month ?? current.expiry_month;
    const year = fields.expiry_year ?? current.expiry_year;
    const fingerprint = await getFingerprint(tx, merchantId, pk);
    if (fingerprint !== null && fingerprint !== undefined && (month !== current.expiry_month || year !== current.expiry_year)) {
      const same = await sameCardAndExpiry(tx, current.customer_pk, fingerprint, month, year);
      if (same !== undefined && same.pk !== pk) return { kind: 'duplicate', of: same };
    }
    const row = await updatePaymentMethod(tx, merchantId, pk, fields, input.nowMs);
    return row === undefined ? { kind: 'absent' } : { kind: 'changed', row };
  });
}

/**
 * Deletes the method (its card data erased) and stops the schedules charging
 * it; with `refuseWhenScheduled` (accept.blue's 409) a method an active
 * schedule charges is not deleted. Nothing changes unless it answers 'deleted'.
 */
export function erasePaymentMethod(db: Db, input: { merchantId: string; pk: number; nowMs: number; refuseWhenScheduled: boolean }): Promise<EraseAnswer> {
  return command(db, async (tx): Promise<EraseAnswer> => {
    if (input.refuseWhenScheduled && (await hasActiveSchedules(tx, input.merchantId, { methodPk: input.pk }))) {
      return (await getPaymentMethod(tx, input.merchantId, input.pk)) === undefined ? 'absent' : 'scheduled';
    }
    if (!(await deletePaymentMethod(tx, input.merchantId, input.pk, input.nowMs))) throw new Refusal<EraseAnswer>('absent');
    await stopSchedulesOf(tx, input.merchantId, { methodPk: input.pk }, input.nowMs);
    return 'deleted';
  });
}
