// Card tokenization: checks the card, seals its number and security code,
// and stores a single-use nonce bound to the calling source for 15 minutes.
// One write transaction with one INSERT. The card data is sealed under a key
// derived from the nonce itself, which is stored only as a hash: whatever the
// row leaves behind once used or expired (old pages, row versions, backups)
// cannot be opened by anyone, the holder of the card-data key included
// (docs/api-decisions.md section 8).
import { checkCardNumber, checkCvv, checkExpiry } from '../../domain/cards.ts';
import type { Clock } from '../../domain/clock.ts';
import { isoTime } from '../../domain/iso-time.ts';
import { hashNonce, newNonce, NONCE_TTL_MS } from '../../domain/nonce.ts';
import type { Secret } from '../../domain/secret.ts';
import type { CardCipher } from '../../crypto/card-cipher.ts';
import { cardCipherFor } from '../../crypto/card-key.ts';
import { fail } from '../../errors.ts';
import type { Service } from '../../service.ts';
import { storeNonce } from '../../store/payin/tokens.ts';

export interface TokenizeDeps {
  readonly db: Service['db'];
  readonly clock: Clock;
  readonly cipher: CardCipher;
}

/** What tokenizing gets from the service. */
export function tokenizeDepsOf(service: Pick<Service, 'db' | 'clock' | 'config'>): TokenizeDeps {
  return { db: service.db, clock: service.clock, cipher: cardCipherFor(service.config) };
}

export interface TokenizeInput {
  readonly cardNumber: Secret<string>;
  readonly expiryMonth: number;
  readonly expiryYear: number;
  /** Required on POST /api/v2/tokens (its schema); optional with a card sent to a charge or verify (raw-card.ts). */
  readonly cvv: Secret<string> | null;
}

export interface TokenizeResult {
  readonly nonce: string;
  readonly expires_at: string;
  readonly card_type: string;
  readonly last_4: string;
}

export async function tokenizeCard(deps: TokenizeDeps, principal: { merchantId: string; sourceId: string }, input: TokenizeInput): Promise<TokenizeResult> {
  const card = checkCardNumber(input.cardNumber.reveal());
  if (!card.ok) fail('invalid_card', card.reason);
  const expiryProblem = checkExpiry(input.expiryMonth, input.expiryYear, deps.clock.nowMs());
  if (expiryProblem !== null) fail('invalid_card', expiryProblem);
  const cvvProblem = input.cvv === null ? null : checkCvv(input.cvv.reveal(), card.facts);
  if (cvvProblem !== null) fail('invalid_card', cvvProblem);

  const nonce = newNonce();
  const nowMs = deps.clock.nowMs();
  const expiresAtMs = nowMs + NONCE_TTL_MS;
  const row = {
    nonce_hash: hashNonce(nonce),
    source_id: principal.sourceId,
    merchant_id: principal.merchantId,
    card_number_enc: deps.cipher.sealForNonce(input.cardNumber, 'card_number', principal.sourceId, nonce),
    cvv_enc: input.cvv === null ? null : deps.cipher.sealForNonce(input.cvv, 'cvv', principal.sourceId, nonce),
    card_type: card.facts.cardType,
    last4: card.facts.last4,
    bin: card.facts.bin,
    expiry_month: input.expiryMonth,
    expiry_year: input.expiryYear,
    created_at_ms: nowMs,
    expires_at_ms: expiresAtMs,
  };
  await storeNonce(deps.db, row);
  return { nonce, expires_at: isoTime(expiresAtMs), card_type: card.facts.cardType, last_4: card.facts.last4 };
}
