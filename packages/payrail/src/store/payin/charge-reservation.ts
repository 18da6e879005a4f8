// Step 1 of a charge (flows/payin/charge.ts): one write transaction that
// reserves the Idempotency-Key (if any), takes the card of the source and
// inserts the charge as pending, awaiting the processor's answer. A refused
// card rolls the reservation back, the key's included (Refusal).
import type { Clock } from '../../domain/clock.ts';
import { type ChargeRow, insertPendingCharge, type NewCharge, pendingChargeRow } from '../charges.ts';
import { command, Refusal } from '../command.ts';
import type { Db, Tx } from '../db.ts';
import { getCustomer } from '../customers.ts';
import { keepsReferenceCards } from '../merchants.ts';
import { reserveKey } from '../idempotency.ts';
import { type CardKeys, type CardRefusal, type CardSourceRequest, type ChargeCard, takeCardSourceIn } from './card-source.ts';

/** An Idempotency-Key to reserve; keys older than `ttlMs` are free again. */
export interface KeyClaim {
  readonly sourceId: string;
  readonly idemKey: string;
  readonly requestHash: string;
  readonly ttlMs: number;
}

/** What the merchant set that the pending charge depends on. */
export interface ChargeSettings {
  /** Approved charges keep their card for `ref-` charges for the whole retention (merchants.keeps_reference_cards). */
  readonly keepsReferenceCards: boolean;
}

/** The pending charge to insert for the card taken: built by the flow (it seals the card's copies). */
export type PendingChargeOf = (card: ChargeCard, nowMs: number, settings: ChargeSettings) => NewCharge;

export interface ChargeReservationInput {
  readonly clock: Clock;
  readonly key: KeyClaim | null;
  readonly payer: { readonly merchantId: string; readonly sourceId: string };
  readonly source: CardSourceRequest;
  /** The customer the request links the charge to (accept.blue's customer.customer_id); ignored when not the merchant's. */
  readonly customerPk?: number | null;
  readonly keys: CardKeys;
  readonly pendingOf: PendingChargeOf;
}

export type ChargeReservation = { kind: 'taken' } | { kind: 'reserved'; charge: ChargeRow; card: ChargeCard } | CardRefusal;

export function reserveCharge(db: Db, input: ChargeReservationInput): Promise<ChargeReservation> {
  return command(db, async (tx): Promise<ChargeReservation> => {
    const nowMs = input.clock.nowMs();
    if (input.key !== null) {
      const { sourceId, idemKey, requestHash, ttlMs } = input.key;
      if (!(await reserveKey(tx, { sourceId, idemKey, requestHash, nowMs, staleAtOrBeforeMs: nowMs - ttlMs }))) return { kind: 'taken' };
    }
    const reserved = await reserveChargeIn(tx, input, nowMs);
    if (reserved.kind === 'refused') throw new Refusal(reserved);
    return reserved;
  });
}

/**
 * Takes the card and inserts the charge as pending inside the caller's
 * transaction (a schedule's run reserves its charge in the transaction that
 * records the run). A refusal is answered, nothing else written but what the
 * caller must roll back (a consumed nonce).
 */
export async function reserveChargeIn(
  tx: Tx,
  input: Pick<ChargeReservationInput, 'payer' | 'source' | 'keys' | 'pendingOf' | 'customerPk'>,
  nowMs: number,
): Promise<{ kind: 'reserved'; charge: ChargeRow; card: ChargeCard } | CardRefusal> {
  const taken = await takeCardSourceIn(tx, input.keys, input.payer, input.source, nowMs);
  if ('kind' in taken) return taken;
  const card = await linkedCustomer(tx, input.payer.merchantId, input.customerPk ?? null, taken);
  // Read only when the charge could keep a copy of its card (a saved method's charge keeps none).
  const settings = { keepsReferenceCards: card.keepForReference && (await keepsReferenceCards(tx, input.payer.merchantId)) };
  const pending = input.pendingOf(card, nowMs, settings);
  const charge = pendingChargeRow(await insertPendingCharge(tx, pending), pending);
  return { kind: 'reserved', charge, card };
}

/** The card with the customer the request names, when that customer is the merchant's; else as taken (a saved card's customer, or none). */
async function linkedCustomer(tx: Tx, merchantId: string, customerPk: number | null, card: ChargeCard): Promise<ChargeCard> {
  if (customerPk === null || customerPk === card.customerPk) return card;
  const customer = await getCustomer(tx, merchantId, customerPk);
  return customer === undefined ? card : { ...card, customerPk: customer.pk };
}
