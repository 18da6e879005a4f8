// Saved-card tokens on their own (accept.blue's POST /saved-cards and PATCH
// /saved-cards/:cardRef; docs/acceptblue-compatibility.md): a card, or the
// card of a nonce, a payment method or an earlier transaction, kept under a
// new `card_ref` without asking the processor, for later use as the source
// `tkn-<card_ref>`. The card-number and expiry rules are tokenization's; a
// nonce is consumed. Tokens are the merchant's: another merchant's reads as
// absent (not_found).
import { CARD_REF_PATTERN, newCardRef } from '../../domain/card-refs.ts';
import { checkCardNumber, checkExpiry } from '../../domain/cards.ts';
import { hashNonce } from '../../domain/nonce.ts';
import { parsePaymentSource } from '../../domain/payment-source.ts';
import { Secret } from '../../domain/secret.ts';
import { fail } from '../../errors.ts';
import type { CardTokenRow } from '../../store/card-tokens.ts';
import { changeCardTokenExpiry, createCardToken, type TokenCard } from '../../store/vault/card-tokens.ts';
import { failCardSource } from '../payin/card-source.ts';
import { checkCardOrSource, keyedBodyOf } from '../payin/raw-card.ts';
import { answered, type Created, createOnce } from './keyed-create.ts';
import type { Owner } from './stored-common.ts';
import { cipherOf, type VaultContext } from './vault-context.ts';

export interface SavedCardCreate {
  readonly card?: string | undefined;
  readonly source?: string | undefined;
  readonly expiry_month?: number | undefined;
  readonly expiry_year?: number | undefined;
}

export interface SavedCardChange {
  readonly expiry_month?: number | undefined;
  readonly expiry_year?: number | undefined;
}

/** POST /saved-cards answers the token in camelCase, as accept.blue does. */
export interface SavedCardView {
  readonly cardRef: string;
}

export interface SavedCardExpiryView {
  readonly expiry_month: number;
  readonly expiry_year: number;
  readonly cardRef: string;
}

const viewOf = (row: Pick<CardTokenRow, 'card_ref'>): SavedCardView => ({ cardRef: row.card_ref });

export async function createSavedCard(
  vault: VaultContext,
  owner: Owner,
  input: SavedCardCreate,
  idempotencyKey: string | null,
): Promise<Created<SavedCardView>> {
  checkCardOrSource(input);
  if ((input.expiry_month === undefined) !== (input.expiry_year === undefined)) fail('invalid_request', 'expiry_month and expiry_year go together');
  const nowMs = vault.clock.nowMs();
  if (input.expiry_month !== undefined && input.expiry_year !== undefined) {
    const problem = checkExpiry(input.expiry_month, input.expiry_year, nowMs);
    if (problem !== null) fail('invalid_card', problem);
  }
  const cipher = cipherOf(vault);
  const card = tokenCardOf(vault, owner, input);
  const idem = { key: idempotencyKey, operation: 'saved-card', body: keyedBodyOf(cipher, owner.merchantId, input) };
  return createOnce(vault.clock, owner, idem, async (key) =>
    answered(await createCardToken(vault.db, { key, payer: owner, cardRef: newCardRef(), card, nowMs, render: viewOf }), failCardSource),
  );
}

/** The card of the request: sealed here when sent as such, else what the store takes from the source. */
function tokenCardOf(vault: VaultContext, owner: Owner, input: SavedCardCreate): TokenCard {
  const cipher = cipherOf(vault);
  if (input.card !== undefined) {
    const checked = checkCardNumber(input.card);
    if (!checked.ok) fail('invalid_card', checked.reason);
    if (input.expiry_month === undefined || input.expiry_year === undefined) throw new Error('a card without its expiry was not checked');
    const card = {
      card_number_enc: cipher.seal(new Secret(input.card), 'card_number', owner.sourceId),
      card_type: checked.facts.cardType,
      last4: checked.facts.last4,
      bin: checked.facts.bin,
      expiry_month: input.expiry_month,
      expiry_year: input.expiry_year,
    };
    return { kind: 'sealed', card };
  }
  const text = input.source ?? '';
  const source = parsePaymentSource(text);
  // accept.blue tokenizes a nonce, a payment method or a reference; a token is one already.
  if (source === null || source.kind === 'token') fail('invalid_request', 'source must be a nonce, pm-<payment method id> or ref-<reference number>');
  if (source.kind === 'nonce' && input.expiry_month === undefined) fail('invalid_request', 'expiry_month and expiry_year are required with a nonce');
  const request = {
    source,
    nonceHash: source.kind === 'nonce' ? hashNonce(source.nonce) : null,
    expiryMonth: input.expiry_month,
    expiryYear: input.expiry_year,
    billing: undefined,
  };
  return { kind: 'source', request, keys: cipher, seal: (number) => cipher.seal(number, 'card_number', owner.sourceId) };
}

export async function changeSavedCard(vault: VaultContext, owner: Owner, cardRef: string, input: SavedCardChange): Promise<SavedCardExpiryView> {
  if (!CARD_REF_PATTERN.test(cardRef)) fail('not_found', `saved card ${cardRef.slice(0, 40)} not found`);
  if (input.expiry_month !== undefined && input.expiry_year !== undefined) {
    const problem = checkExpiry(input.expiry_month, input.expiry_year, vault.clock.nowMs());
    if (problem !== null) fail('invalid_card', problem);
  }
  const row = await changeCardTokenExpiry(vault.db, {
    merchantId: owner.merchantId,
    cardRef,
    expiryMonth: input.expiry_month ?? null,
    expiryYear: input.expiry_year ?? null,
    nowMs: vault.clock.nowMs(),
  });
  if (row === undefined) fail('not_found', `saved card ${cardRef} not found`);
  return { expiry_month: row.expiry_month, expiry_year: row.expiry_year, cardRef: row.card_ref };
}
