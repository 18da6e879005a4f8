// Unmatched credits (accept.blue's /transactions/credit;
// docs/acceptblue-compatibility.md): money to a card no charge of it names,
// taken from a source as a charge takes its card (a nonce, a saved card, an
// earlier transaction's card: store/payin/card-source.ts). A credit is a
// row of the charges table of kind 'refund' without a refunded charge
// (parent_pk NULL), so it reads, settles and is recovered as a refund does,
// and the ledger holds it as one: its amount leaves the merchant's available
// balance when it is reserved ('refund.debit', refused below balance +
// overdraft) and comes back if the processor says no ('refund.release').
//
// Step 1 here is one write transaction: reserve the Idempotency-Key, take
// the card, insert the credit as pending (with its sealed card number, for
// recovery) and hold its amount. The processor is asked afterwards, outside
// it; its answer is recorded by recordCreditAnswer, for the request or for
// the worker, once.
import type { EventType } from '../../domain/webhooks.ts';
import { CHARGE_COLUMNS, type ChargeRow, changeCharge, chargeRowOf } from '../charges.ts';
import { command, Refusal } from '../command.ts';
import type { Db, Tx } from '../db.ts';
import { draftTransactionEventOf, type EventViews } from '../event-outbox.ts';
import { completeKey, reserveKey } from '../idempotency.ts';
import { moveCardMoney, postToMerchant } from './card-money.ts';
import { type CardKeys, type CardRefusal, type CardSourceRequest, type ChargeCard, takeCardSourceIn } from './card-source.ts';
import type { OperationCaller } from './operation-common.ts';

/** The credit row to insert for the card taken: built by the flow (it seals the card number). */
export interface NewCredit {
  readonly amountCents: number;
  readonly sealedNumber: Buffer;
  readonly requestJson: string;
  readonly recoverAtMs: number;
}

export interface CreditRequest {
  readonly caller: OperationCaller;
  readonly key: { readonly key: string; readonly requestHash: string } | null;
  readonly source: CardSourceRequest;
  readonly keys: CardKeys;
  readonly creditOf: (card: ChargeCard, nowMs: number) => NewCredit;
  /** Read in the transaction, as the decision's "now". */
  readonly clock: { nowMs(): number };
  /** A completed key older than this is reserved anew. */
  readonly keyTtlMs: number;
}

export type CreditStep =
  | { readonly kind: 'taken' }
  | { readonly kind: 'reserved'; readonly credit: ChargeRow; readonly card: ChargeCard }
  | { readonly kind: 'below_floor'; readonly amountCents: number }
  | CardRefusal;

/** Inserts a credit awaiting the processor's answer; returns its reference number. */
async function insertCredit(tx: Tx, caller: OperationCaller, card: ChargeCard, credit: NewCredit, idemKey: string | null, nowMs: number): Promise<number> {
  const pk = await tx.insert(
    `INSERT INTO charges (merchant_id, source_id, status, amount_cents, currency, card_type, last4, bin, expiry_month, expiry_year, card_number_enc,
       request_json, idem_key, next_run_at_ms, created_at_ms, updated_at_ms, kind, parent_pk, customer_pk, payment_method_pk)
     VALUES (?, ?, 'pending', ?, 'USD', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'refund', NULL, ?, ?)`,
    [
      caller.merchantId,
      caller.sourceId,
      credit.amountCents,
      card.cardType,
      card.last4,
      card.bin,
      card.expiryMonth,
      card.expiryYear,
      credit.sealedNumber,
      credit.requestJson,
      idemKey,
      credit.recoverAtMs,
      nowMs,
      nowMs,
      card.customerPk,
      card.methodPk,
    ],
  );
  if (pk === null) throw new Error('INSERT INTO charges (credit) returned no pk');
  return pk;
}

/** Step 1 of a credit: reserves it, or answers why not (nothing written then, a nonce included). */
export async function startCredit(db: Db, r: CreditRequest): Promise<CreditStep> {
  return command(db, async (tx): Promise<CreditStep> => {
    const nowMs = r.clock.nowMs();
    if (r.key !== null) {
      const claim = { sourceId: r.caller.sourceId, idemKey: r.key.key, requestHash: r.key.requestHash, nowMs, staleAtOrBeforeMs: nowMs - r.keyTtlMs };
      if (!(await reserveKey(tx, claim))) return { kind: 'taken' };
    }
    const card = await takeCardSourceIn(tx, r.keys, r.caller, r.source, nowMs);
    if ('kind' in card) throw new Refusal<CreditStep>(card);
    const credit = r.creditOf(card, nowMs);
    const pk = await insertCredit(tx, r.caller, card, credit, r.key?.key ?? null, nowMs);
    // Sent together, the hold last (HOT_ROWS_LAST in card-money.ts); its refusal rolls back everything above.
    const [row, held] = await Promise.all([
      tx.get<ChargeRow>(`SELECT ${CHARGE_COLUMNS} FROM charges WHERE pk = ?`, [pk]),
      moveCardMoney(tx, { pk, merchant_id: r.caller.merchantId }, 'refund.debit', false, credit.amountCents, nowMs),
    ]);
    if (held === 'below_floor') throw new Refusal<CreditStep>({ kind: 'below_floor', amountCents: credit.amountCents });
    if (row === undefined) throw new Error(`credit ${pk} vanished`);
    return { kind: 'reserved', credit: chargeRowOf(row), card };
  });
}

/** The processor's answer to a credit, as the credit row records it. */
export type CreditAnswer =
  | { readonly approved: true; readonly authCode: string; readonly processorRef: string }
  | {
      readonly approved: false;
      readonly status: 'declined' | 'failed';
      readonly errorCode: string;
      readonly errorMessage: string;
      readonly processorRef: string;
    };

/** What was sealed for recovery goes once the credit is final. */
const ERASED = Buffer.alloc(0);

/**
 * Records the answer to `credit` (pending, its amount held since its
 * reservation) in one transaction: the guarded change (only the first
 * recorder wins), its event, the reply its key keeps and, last, the release
 * of a declined or failed credit's hold. Null when recorded already.
 */
export async function recordCreditAnswer(
  db: Db,
  input: { credit: ChargeRow; answer: CreditAnswer; views: { events: EventViews; render: (row: ChargeRow) => string; clock: { nowMs(): number } } },
): Promise<string | null> {
  const { credit, answer, views } = input;
  return db.write(async (tx) => {
    const nowMs = views.clock.nowMs();
    const condition = "kind = 'refund' AND parent_pk IS NULL AND status = 'pending'";
    const changed = answer.approved
      ? await changeCharge(tx, {
          set: "status = 'approved', stage = 'captured', auth_code = ?, processor_ref = ?, card_number_enc = ?, next_run_at_ms = NULL, updated_at_ms = ?",
          values: [answer.authCode, answer.processorRef, ERASED, nowMs],
          pk: credit.pk,
          condition,
          joinBatchWhen: 'TRUE',
          nowMs,
        })
      : await changeCharge(tx, {
          set: "status = ?, auth_code = '', error_code = ?, error_message = ?, processor_ref = ?, card_number_enc = ?, next_run_at_ms = NULL, updated_at_ms = ?",
          values: [answer.status, answer.errorCode, answer.errorMessage, answer.processorRef, ERASED, nowMs],
          pk: credit.pk,
          condition,
          joinBatchWhen: null,
          nowMs,
        });
    if (changed === undefined) return null;
    const type: EventType = answer.approved ? 'refund.succeeded' : 'refund.declined';
    const draft = await draftTransactionEventOf(tx, views.events, type, changed, nowMs);
    const json = draft.plainJson ?? views.render(changed);
    const keep = credit.idem_key === null ? undefined : completeKey(tx, credit.source_id, credit.idem_key, 200, json);
    await Promise.all([draft.insert(), keep, answer.approved ? undefined : postToMerchant(tx, changed, 'refund.release', credit.amount_cents, nowMs)]);
    return json;
  });
}

/** The sealed card number of a pending credit, for the worker that asks the processor again; undefined once final. */
export async function sealedCreditNumber(db: Db, pk: number): Promise<Buffer | undefined> {
  const row = await db.read((tx) =>
    tx.get<{ card_number_enc: Buffer }>("SELECT card_number_enc FROM charges WHERE pk = ? AND kind = 'refund' AND parent_pk IS NULL AND status = 'pending'", [
      pk,
    ]),
  );
  return row === undefined || row.card_number_enc.length === 0 ? undefined : Buffer.from(row.card_number_enc);
}
