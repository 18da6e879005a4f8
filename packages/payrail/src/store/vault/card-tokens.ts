// Saved-card tokens made and changed on their own (POST and PATCH
// /api/v2/saved-cards, flows/vault/card-tokens.ts): a token from a card sent
// as such, or from the card a nonce, a payment method or an earlier
// transaction names (taken as a charge takes it: a nonce is consumed), each
// made at most once per Idempotency-Key. A refusal rolls back whole (the
// nonce stays usable, the key unreserved).
import type { Secret } from '../../domain/secret.ts';
import { type CardTokenRow, getSealedCardToken, insertCardToken, type SealedCardToken, updateCardTokenExpiry } from '../card-tokens.ts';
import { command, Refusal } from '../command.ts';
import { getCustomer } from '../customers.ts';
import type { Db } from '../db.ts';
import { countPaymentMethods, getPaymentMethod, insertPaymentMethod, type PaymentMethodRow } from '../payment-methods.ts';
import { type CardKeys, type CardRefusal, type CardSourceRequest, takeCardSourceIn } from '../payin/card-source.ts';
import { createUnderKey, type CreateKey, type KeyedAnswer } from './keyed-create.ts';
import type { SaveCardRefusal, SealedCard } from './payment-methods.ts';

/** The card of a new token: sealed by the flow already, or named by a source. */
export type TokenCard =
  | { readonly kind: 'sealed'; readonly card: Omit<SealedCardToken, 'card_ref' | 'merchant_id' | 'source_id'> }
  | { readonly kind: 'source'; readonly request: CardSourceRequest; readonly keys: CardKeys; readonly seal: (number: Secret<string>) => Buffer };

export interface CreateCardTokenInput<V> {
  readonly key: CreateKey | null;
  readonly payer: { readonly merchantId: string; readonly sourceId: string };
  readonly cardRef: string;
  readonly card: TokenCard;
  readonly nowMs: number;
  readonly render: (row: CardTokenRow) => V;
}

export function createCardToken<V>(db: Db, input: CreateCardTokenInput<V>): Promise<KeyedAnswer<V> | CardRefusal> {
  const { payer, nowMs } = input;
  return command(db, (tx) =>
    createUnderKey(tx, input.key, async () => {
      let card = input.card.kind === 'sealed' ? input.card.card : undefined;
      if (input.card.kind === 'source') {
        const taken = await takeCardSourceIn(tx, input.card.keys, payer, input.card.request, nowMs);
        if ('kind' in taken) throw new Refusal(taken);
        card = {
          // Sealed under the card-data key for the calling source, as a payment method's number is.
          card_number_enc: input.card.seal(taken.number),
          card_type: taken.cardType,
          last4: taken.last4,
          bin: taken.bin,
          expiry_month: taken.expiryMonth,
          expiry_year: taken.expiryYear,
          // The kept card's first authorization, when its source knew it.
          network_transaction_id: taken.networkTransactionId,
        };
      }
      if (card === undefined) throw new Error('a token without a card');
      const token: SealedCardToken = { ...card, card_ref: input.cardRef, merchant_id: payer.merchantId, source_id: payer.sourceId };
      // 82 random bits (domain/card-refs.ts): a taken card_ref is a broken random source, not bad luck.
      if (!(await insertCardToken(tx, token, nowMs))) throw new Error('a new card_ref is taken already');
      return input.render(token);
    }),
  );
}

/** The token with what is given of its new expiry, or undefined when it is not the merchant's (nothing changed). */
export function changeCardTokenExpiry(
  db: Db,
  input: { merchantId: string; cardRef: string; expiryMonth: number | null; expiryYear: number | null; nowMs: number },
): Promise<CardTokenRow | undefined> {
  return db.write((tx) =>
    updateCardTokenExpiry(tx, input.merchantId, input.cardRef, { expiry_month: input.expiryMonth, expiry_year: input.expiryYear }, input.nowMs),
  );
}

export type TokenMethodRefusal = Exclude<SaveCardRefusal, { kind: 'nonce' } | { kind: 'last4-mismatch' }> | { readonly kind: 'no-token' };

export interface SaveTokenMethodInput<V> {
  readonly key: CreateKey | null;
  readonly payer: { readonly merchantId: string; readonly sourceId: string };
  readonly customerPk: number;
  readonly methodsMax: number;
  readonly cardRef: string;
  /** The expiry sent, which the token takes too (as a charge with `tkn-` and an expiry does). */
  readonly expiryMonth: number;
  readonly expiryYear: number;
  readonly name: string | null;
  readonly avsAddress: string | null;
  readonly avsZip: string | null;
  readonly nowMs: number;
  /** Opens the token's card and seals it for the method (the flow holds the keys). */
  readonly seal: (token: SealedCardToken) => SealedCard;
  readonly render: (row: PaymentMethodRow) => V;
}

/**
 * Saves the card of the merchant's token as a payment method of the
 * customer, under the key (if any); the token stays. The same checks as a
 * save from a nonce (store/vault/payment-methods.ts): the customer is the
 * merchant's, the count bound, the same card saved twice.
 */
export function saveTokenMethodOnce<V>(db: Db, input: SaveTokenMethodInput<V>): Promise<KeyedAnswer<V> | TokenMethodRefusal> {
  const { payer, customerPk, nowMs } = input;
  const refuse = (refusal: TokenMethodRefusal): never => {
    throw new Refusal(refusal);
  };
  return command(db, (tx) =>
    createUnderKey(tx, input.key, async () => {
      if ((await getCustomer(tx, payer.merchantId, customerPk)) === undefined) refuse({ kind: 'no-customer' });
      if ((await countPaymentMethods(tx, customerPk)) >= input.methodsMax) refuse({ kind: 'too-many' });
      const token = await getSealedCardToken(tx, payer.merchantId, input.cardRef);
      if (token === undefined) return refuse({ kind: 'no-token' });
      const expiry = { expiry_month: input.expiryMonth, expiry_year: input.expiryYear };
      if (token.expiry_month !== expiry.expiry_month || token.expiry_year !== expiry.expiry_year) {
        await updateCardTokenExpiry(tx, payer.merchantId, input.cardRef, expiry, nowMs);
      }
      const saved = await insertPaymentMethod(
        tx,
        {
          merchant_id: payer.merchantId,
          customer_pk: customerPk,
          source_id: payer.sourceId,
          ...input.seal(token),
          card_type: token.card_type,
          last4: token.last4,
          bin: token.bin,
          ...expiry,
          name: input.name,
          avs_address: input.avsAddress,
          avs_zip: input.avsZip,
          network_transaction_id: token.network_transaction_id ?? null,
        },
        nowMs,
      );
      if ('duplicateOf' in saved) {
        const existing = await getPaymentMethod(tx, payer.merchantId, saved.duplicateOf);
        if (existing === undefined) throw new Error(`duplicate payment method ${saved.duplicateOf} is not live`);
        return refuse({ kind: 'duplicate', of: existing });
      }
      return input.render(saved.created);
    }),
  );
}
