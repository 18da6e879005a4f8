// The zero-amount card check (flows/payin/verify.ts): the same steps as a
// charge. Reserving it (key, nonce, pending row) and recording its answer
// (with the reply its key keeps) are one write transaction each; a refused
// nonce rolls the reservation back, the key's included (Refusal).
import type { Clock } from '../../domain/clock.ts';
import type { Secret } from '../../domain/secret.ts';
import { issueCardTokenOf } from '../card-tokens.ts';
import { command, Refusal } from '../command.ts';
import type { Db } from '../db.ts';
import { completeKey, type HeldKey, reserveKey } from '../idempotency.ts';
import type { NonceRow } from '../nonces.ts';
import { getTransaction, type TransactionRow } from '../transactions.ts';
import {
  claimDueVerifications,
  type DueVerification,
  getVerificationHoldingKey,
  insertPendingVerification,
  type NewVerification,
  recordVerificationOutcome,
  type VerificationOutcome,
} from '../verifications.ts';
import type { CardKeys } from './card-source.ts';
import type { KeyClaim } from './charge-reservation.ts';
import { type NonceRefusal, takeNonceIn } from './nonce-take.ts';

export interface VerificationReservationInput {
  readonly clock: Clock;
  readonly key: KeyClaim | null;
  readonly payer: { readonly merchantId: string; readonly sourceId: string };
  /** The nonce as sent (its card data opens with it), its hash and the expiry sent with it. */
  readonly nonce: { readonly text: string; readonly hash: string; readonly expiryMonth: number; readonly expiryYear: number };
  readonly keys: CardKeys;
  /** The pending verification to insert for the nonce's card: built by the flow (it seals the number). */
  readonly pendingOf: (nonce: NonceRow, number: Secret<string>, nowMs: number) => NewVerification;
}

export type VerificationReservation =
  | { kind: 'taken' }
  | { kind: 'reserved'; row: TransactionRow; number: Secret<string>; cvv: Secret<string> | null }
  | NonceRefusal;

export function reserveVerification(db: Db, input: VerificationReservationInput): Promise<VerificationReservation> {
  const { payer } = input;
  return command(db, async (tx): Promise<VerificationReservation> => {
    const nowMs = input.clock.nowMs();
    if (input.key !== null) {
      const { sourceId, idemKey, requestHash, ttlMs } = input.key;
      if (!(await reserveKey(tx, { sourceId, idemKey, requestHash, nowMs, staleAtOrBeforeMs: nowMs - ttlMs }))) return { kind: 'taken' };
    }
    const claim = { sourceId: payer.sourceId, nonceHash: input.nonce.hash, expiryMonth: input.nonce.expiryMonth, expiryYear: input.nonce.expiryYear };
    const nonce = await takeNonceIn(tx, claim, nowMs);
    if ('kind' in nonce) throw new Refusal(nonce);
    // The nonce's card data opens only with the nonce itself (src/crypto/card-cipher.ts).
    const number = input.keys.openForNonce(nonce.card_number_enc, 'card_number', payer.sourceId, input.nonce.text);
    const cvv = nonce.cvv_enc === null ? null : input.keys.openForNonce(nonce.cvv_enc, 'cvv', payer.sourceId, input.nonce.text);
    const pk = await insertPendingVerification(tx, input.pendingOf(nonce, number, nowMs));
    const row = await getTransaction(tx, pk, payer.merchantId);
    if (row === undefined) throw new Error(`verification ${pk} vanished`);
    return { kind: 'reserved', row, number, cvv };
  });
}

/** Records the answer (once) with the reply its key keeps; the reply, or null when recorded already. */
export function recordVerificationAnswer(
  db: Db,
  input: {
    readonly row: Pick<TransactionRow, 'pk' | 'merchant_id' | 'source_id' | 'idem_key' | 'save_card_ref'>;
    readonly outcome: VerificationOutcome;
    readonly clock: Clock;
    readonly render: (row: TransactionRow) => string;
  },
): Promise<string | null> {
  const { row } = input;
  return db.write(async (tx) => {
    const nowMs = input.clock.nowMs();
    // Before the outcome erases the verification's sealed card, which the token copies (a no-op once recorded).
    if (input.outcome.status === 'approved' && row.save_card_ref !== null)
      await issueCardTokenOf(tx, 'verifications', row.pk, nowMs, input.outcome.network_transaction_id ?? null);
    if (!(await recordVerificationOutcome(tx, row.pk, input.outcome, nowMs))) return null;
    const json = input.render((await getTransaction(tx, row.pk, row.merchant_id))!);
    if (row.idem_key !== null) await completeKey(tx, row.source_id, row.idem_key, 200, json);
    return json;
  });
}

/** The verification reserved with a key at `reservedAtMs`, as a transaction. */
export function readVerificationHoldingKey(db: Db, key: HeldKey): Promise<TransactionRow | undefined> {
  return db.read(async (tx) => {
    const held = await getVerificationHoldingKey(tx, key);
    return held === undefined ? undefined : getTransaction(tx, held.pk, key.merchantId);
  });
}

export function readTransaction(db: Db, query: { pk: number; merchantId: string }): Promise<TransactionRow | undefined> {
  return db.read((tx) => getTransaction(tx, query.pk, query.merchantId));
}

/** Claims due pending verifications, leased until `leaseUntilMs`. */
export function claimDueVerificationsBatch(db: Db, input: { nowMs: number; leaseUntilMs: number; limit: number }): Promise<DueVerification[]> {
  return db.write((tx) => claimDueVerifications(tx, input.nowMs, input.leaseUntilMs, input.limit));
}
