// Check transactions made straight through the store, in the shape migration
// 029 describes (a charges row with payment_type 'check', the account number
// sealed in card_number_enc with the card cipher, its last four in last4,
// card_type and bin empty, expiry 0/0; its ACH entry inserted in the same
// transaction), then submitted to the configured ACH network and accepted,
// as the check charge request does. Used by the ACH lifecycle tests until
// they go through the HTTP API.
import assert from 'node:assert/strict';
import { cardCipherFor } from '../../src/crypto/card-key.ts';
import { accountTypeOf, DEFAULT_SEC_CODE } from '../../src/domain/ach.ts';
import { ACH_STATUS_POLL_INTERVAL_MS } from '../../src/domain/ach-schedule.ts';
import { merchantAccount } from '../../src/domain/ledger.ts';
import { Secret } from '../../src/domain/secret.ts';
import { ACH_NETWORK_TIMEOUT_MS } from '../../src/providers/ach-network.ts';
import { EVENT_VIEWS } from '../../src/flows/events/emit.ts';
import { chargeReference } from '../../src/flows/common/provider-references.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import type { Service } from '../../src/service.ts';
import { type AchEntryRow, getAchEntry, insertAchEntry } from '../../src/store/ach/entries.ts';
import { acceptAchEntry, holdAchCredit } from '../../src/store/ach/transitions.ts';
import { Refusal, command } from '../../src/store/command.ts';
import { getAccount } from '../../src/store/ledger.ts';

/** What the check charge keeps of its request, as the views read it. */
const REQUEST_JSON = JSON.stringify({
  billing_info: {},
  transaction_details: { description: null, clerk: null, terminal: null, client_ip: null, invoice_number: null, po_number: null, order_number: null },
});

/** A routing number whose ABA check digit holds. */
export const ROUTING_NUMBER = '021000021';

export interface NewCheck {
  readonly amountCents: number;
  /** Digits; the sandbox decides returns by the last four (providers/sandbox/ach-network.ts). */
  readonly accountNumber: string;
  readonly direction?: 'debit' | 'credit';
  /** A refund's check (credit only). */
  readonly parentPk?: number;
  /** Stop after the reservation: the entry stays submitting, as when the request died before the network answered. */
  readonly submit?: boolean;
}

/** Reserves a check (row and entry in one transaction; a credit also holds its amount), then submits and accepts it unless `submit` is false. Returns its pk. */
export async function createCheck(service: Service, merchant: CreatedMerchant, check: NewCheck): Promise<number> {
  const nowMs = service.clock.nowMs();
  const direction = check.direction ?? 'debit';
  const sourceId = merchant.source.id;
  const sealed = cardCipherFor(service.config).seal(new Secret(check.accountNumber), 'card_number', sourceId);
  const network = service.providers.achNetwork;
  assert.ok(network !== null, 'an ACH network is configured');
  const reserved = await command(service.db, async (tx) => {
    const row = await tx.get<{ pk: number | string }>(
      `INSERT INTO charges (merchant_id, source_id, status, amount_cents, currency, card_type, last4, bin, expiry_month, expiry_year, card_number_enc,
         request_json, created_at_ms, updated_at_ms, payment_type, kind, parent_pk)
       VALUES (?, ?, 'pending', ?, 'USD', '', ?, '', 0, 0, ?, ?, ?, ?, 'check', ?, ?) RETURNING pk`,
      [
        merchant.merchant_id,
        sourceId,
        check.amountCents,
        check.accountNumber.slice(-4),
        sealed,
        REQUEST_JSON,
        nowMs,
        nowMs,
        check.parentPk === undefined ? 'charge' : 'refund',
        check.parentPk ?? null,
      ],
    );
    const pk = Number(row!.pk);
    await insertAchEntry(tx, {
      chargePk: pk,
      merchantId: merchant.merchant_id,
      direction,
      amountCents: check.amountCents,
      accountName: 'Pat Doe',
      routingNumber: ROUTING_NUMBER,
      accountType: 'Checking',
      secCode: DEFAULT_SEC_CODE,
      network: network.name,
      retryAtMs: nowMs + ACH_NETWORK_TIMEOUT_MS,
      nowMs,
    });
    if (direction === 'credit') {
      const held = await holdAchCredit(tx, {
        chargePk: pk,
        merchantId: merchant.merchant_id,
        parentPk: check.parentPk ?? null,
        amountCents: check.amountCents,
        nowMs,
      });
      if (held !== 'held') throw new Refusal<number>(-1);
    }
    return pk;
  });
  assert.ok(reserved > 0, 'the credit was held');
  if (check.submit === false) return reserved;
  const result = await network.submit({
    reference: chargeReference(service.providerKeys, reserved),
    merchantId: merchant.merchant_id,
    direction,
    amountCents: check.amountCents,
    currency: 'USD',
    account: { name: 'Pat Doe', routingNumber: ROUTING_NUMBER, accountNumber: new Secret(check.accountNumber), accountType: accountTypeOf('Checking')! },
    secCode: DEFAULT_SEC_CODE,
    signal: AbortSignal.timeout(5_000),
  });
  assert.equal(result.outcome, 'accepted');
  const moved = await acceptAchEntry(service.db, {
    chargePk: reserved,
    merchantId: merchant.merchant_id,
    nowMs,
    views: EVENT_VIEWS,
    nextCheckAtMs: nowMs + ACH_STATUS_POLL_INTERVAL_MS,
    networkRef: result.networkRef,
  });
  assert.equal(moved.kind, 'moved');
  return reserved;
}

export async function entryOf(service: Service, merchant: CreatedMerchant, pk: number): Promise<AchEntryRow> {
  const entry = await service.db.read((tx) => getAchEntry(tx, pk, merchant.merchant_id));
  assert.ok(entry !== undefined, `check ${pk} has an entry`);
  return entry;
}

export interface AchBalances {
  readonly available: number;
  readonly ach_pending: number;
  readonly ach_payins: number;
  readonly ach_returns_due: number;
}

export async function achBalances(service: Service, merchantId: string): Promise<AchBalances> {
  return service.db.read(async (tx) => {
    const balance = async (kind: 'available' | 'ach_pending' | 'ach_payins' | 'ach_returns_due') =>
      Number((await getAccount(tx, merchantAccount(merchantId, kind)))!.balance_cents);
    return {
      available: await balance('available'),
      ach_pending: await balance('ach_pending'),
      ach_payins: await balance('ach_payins'),
      ach_returns_due: await balance('ach_returns_due'),
    };
  });
}

/** How many events of `type` name transaction `pk`. */
export async function eventCount(service: Service, pk: number, type: string): Promise<number> {
  const rows = await service.db.read((tx) => tx.all<{ data_json: string }>('SELECT data_json FROM events WHERE type = ?', [type]));
  return rows.filter((row) => {
    const data = JSON.parse(row.data_json) as { id?: string | number; reference_number?: number; transaction?: { id?: number } };
    return Number(data.reference_number ?? data.transaction?.id ?? data.id) === pk;
  }).length;
}
