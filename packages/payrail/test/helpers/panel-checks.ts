// Check rows for panel tests, written the way migration 029 describes a
// check: a charges row with payment_type 'check' (the account number sealed
// in card_number_enc, its last four in last4, no card type, BIN or expiry),
// its ACH entry inserted in `submitting` by store/ach/entries.ts, then moved
// only by the guarded transitions of store/ach/transitions.ts, so the money
// and events are those of a real check.
import { cipherOf } from '../../src/flows/vault/vault-context.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { Secret } from '../../src/domain/secret.ts';
import type { SecCode } from '../../src/domain/ach.ts';
import { insertAchEntry } from '../../src/store/ach/entries.ts';
import type { EventViews } from '../../src/store/event-outbox.ts';
import {
  acceptAchEntry,
  type AchMove,
  beginAchVoid,
  finishAchVoid,
  holdAchCredit,
  originateAchEntry,
  refuseAchEntry,
  returnAchEntry,
  settleAchEntry,
} from '../../src/store/ach/transitions.ts';
import type { Config } from '../../src/config.ts';
import type { ManualClock } from '../../src/domain/clock.ts';
import type { Db } from '../../src/store/db.ts';
import type { TestApp } from './app.ts';

/** Where test checks are written: a store, the clock their times come from, and the configuration whose card key seals the account. */
export interface CheckStore {
  readonly db: Db;
  readonly clock: ManualClock;
  readonly config: Config;
}

/** A test app's store, clock and configuration. */
export function checkStoreOf(t: TestApp): CheckStore {
  return { db: t.service.db, clock: t.clock, config: t.service.config };
}

/**
 * Events of test checks show the reference number only: the panel reads
 * the store, not events, and the transaction views for checks are the
 * payin API's business.
 */
const CHECK_EVENT_VIEWS: EventViews = {
  transactionJson: (row) => JSON.stringify({ reference_number: row.pk }),
  scheduleJson: (row) => JSON.stringify({ id: row.pk }),
  fundedTransfersShownMax: 0,
};

export interface TestCheck {
  readonly amountCents: number;
  readonly accountNumber?: string;
  readonly accountName?: string;
  readonly routingNumber?: string;
  readonly accountType?: string;
  readonly secCode?: SecCode;
  /** A refund of check `parentPk` (an ACH credit), else a check charge (a debit). */
  readonly parentPk?: number;
}

/**
 * A check charge (or refund) of the merchant in `submitting`, as a
 * reservation leaves it: a refund's amount is held from the available
 * balance and counted against its check; returns its reference number.
 */
export async function insertCheck(t: CheckStore, merchant: CreatedMerchant, check: TestCheck): Promise<number> {
  const nowMs = t.clock.nowMs();
  const accountNumber = check.accountNumber ?? '000123456789';
  const sourceId = merchant.source.id;
  const sealed = cipherOf(t).seal(new Secret(accountNumber), 'card_number', sourceId);
  const isRefund = check.parentPk !== undefined;
  return t.db.write(async (tx) => {
    const pk = await tx.insert(
      `INSERT INTO charges (merchant_id, source_id, status, amount_cents, currency, card_type, last4, bin, expiry_month, expiry_year, card_number_enc,
         request_json, next_run_at_ms, created_at_ms, updated_at_ms, kind, parent_pk, payment_type)
       VALUES (?, ?, 'pending', ?, 'USD', '', ?, '', 0, 0, ?, '{}', NULL, ?, ?, ?, ?, 'check')`,
      [
        merchant.merchant_id,
        sourceId,
        check.amountCents,
        accountNumber.slice(-4),
        sealed,
        nowMs,
        nowMs,
        isRefund ? 'refund' : 'charge',
        check.parentPk ?? null,
      ],
    );
    if (pk === null) throw new Error('no pk for the check row');
    await insertAchEntry(tx, {
      chargePk: pk,
      merchantId: merchant.merchant_id,
      direction: isRefund ? 'credit' : 'debit',
      amountCents: check.amountCents,
      accountName: check.accountName ?? 'Ada Lovelace',
      routingNumber: check.routingNumber ?? '011000015',
      accountType: check.accountType ?? 'Checking',
      secCode: check.secCode ?? 'WEB',
      network: 'sandbox',
      retryAtMs: nowMs + 60_000,
      nowMs,
    });
    if (isRefund) {
      const held = await holdAchCredit(tx, {
        chargePk: pk,
        merchantId: merchant.merchant_id,
        parentPk: check.parentPk!,
        amountCents: check.amountCents,
        nowMs,
      });
      if (held !== 'held') throw new Error(`the refund of check ${check.parentPk} was not held: ${held}`);
    }
    return pk;
  });
}

/** How far a test check goes; each step after the previous one, the clock moved `stepMs` between them. */
export type CheckPath = 'submitting' | 'pending' | 'originated' | 'settled' | 'returned_pending' | 'returned_settled' | 'voided' | 'declined';

export const CHECK_STEP_MS = 3_600_000;

function moved(move: AchMove, what: string): void {
  if (move.kind !== 'moved') throw new Error(`${what}: the entry was ${move.state}`);
}

/** Moves check `pk` along `path` through the guarded transitions, the clock advancing CHECK_STEP_MS before each move. */
export async function moveCheck(
  t: CheckStore,
  merchant: CreatedMerchant,
  pk: number,
  path: CheckPath,
  returnCode = 'R01',
  returnReason = 'Insufficient funds',
): Promise<void> {
  if (path === 'submitting') return;
  const base = () => ({ chargePk: pk, merchantId: merchant.merchant_id, nowMs: t.clock.nowMs(), views: CHECK_EVENT_VIEWS, nextCheckAtMs: null });
  const step = () => t.clock.advance(CHECK_STEP_MS);
  if (path === 'declined') {
    step();
    moved(await refuseAchEntry(t.db, { ...base(), outcome: 'declined', errorCode: 'declined', message: 'Account closed at the bank' }), 'refuse');
    return;
  }
  step();
  moved(await acceptAchEntry(t.db, { ...base(), networkRef: `achs_test_${pk}` }), 'accept');
  if (path === 'pending') return;
  if (path === 'voided') {
    step();
    moved(await beginAchVoid(t.db, base()), 'begin void');
    moved(await finishAchVoid(t.db, base()), 'finish void');
    return;
  }
  if (path === 'returned_pending') {
    step();
    moved(await returnAchEntry(t.db, { ...base(), returnedAtMs: t.clock.nowMs(), returnCode, returnReason }), 'return');
    return;
  }
  step();
  moved(await originateAchEntry(t.db, { ...base(), originatedAtMs: t.clock.nowMs() }), 'originate');
  if (path === 'originated') return;
  step();
  moved(await settleAchEntry(t.db, { ...base(), settledAtMs: t.clock.nowMs() }), 'settle');
  if (path === 'settled') return;
  step();
  moved(await returnAchEntry(t.db, { ...base(), returnedAtMs: t.clock.nowMs(), returnCode, returnReason }), 'return');
}

/** A check charge of the merchant taken along `path`; returns its reference number. */
export async function checkAt(t: CheckStore, merchant: CreatedMerchant, path: CheckPath, check: TestCheck = { amountCents: 4_250 }): Promise<number> {
  const pk = await insertCheck(t, merchant, check);
  await moveCheck(t, merchant, pk, path);
  return pk;
}
