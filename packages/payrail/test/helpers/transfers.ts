// Shared pieces of the transfer API tests: request bodies per corridor,
// sandbox receiver numbers, an HTTP caller bound to a merchant's key, and
// approved card payins written through the store (with their ledger
// posting, so the ledger verifier stays green).
import assert from 'node:assert/strict';
import { merchantAccount } from '../../src/domain/ledger.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import type { App } from '../../src/http/app.ts';
import type { Service } from '../../src/service.ts';
import { insertPendingCharge, recordOutcome } from '../../src/store/charges.ts';
import { post } from '../../src/store/ledger.ts';

/** A valid US sender in each of its forms. */
export const SENDER = '+14155552671';

/** E.164 prefixes that leave four free digits at the end of a valid mobile number. */
const RECEIVER_PREFIX: Record<string, string> = {
  KE: '+25471234',
  NG: '+234803123',
  PH: '+63917123',
  GH: '+23324123',
  UG: '+25671234',
  EG: '+20101234',
};

/** A receiver of `country` whose number ends in `lastFour` (which picks the sandbox scenario). */
export function receiver(lastFour: string, country = 'KE'): string {
  return `${RECEIVER_PREFIX[country]!}${lastFour}`;
}

export interface Corridor {
  service: string;
  country: string;
  currency: string;
  attribute: Array<{ name: string; value: string }>;
}

export const CORRIDORS: Record<string, Corridor> = {
  KE: { service: '1001', country: 'KE', currency: 'KES', attribute: [] },
  NG: {
    service: '1002',
    country: 'NG',
    currency: 'NGN',
    attribute: [
      { name: 'receiverFirstName', value: 'Ada' },
      { name: 'receiverLastName', value: 'Obi' },
      { name: 'receiverAccType', value: '1' },
      { name: 'receiverIssuerCode', value: '058' },
      { name: 'receiverAccountNumber', value: '0123456789' },
      { name: 'receiverBankName', value: 'GTBank' },
    ],
  },
  PH: { service: '1003', country: 'PH', currency: 'PHP', attribute: [{ name: 'receiverName', value: 'Jose Rizal' }] },
  GH: {
    service: '1004',
    country: 'GH',
    currency: 'GHS',
    attribute: [
      { name: 'receiverFirstName', value: 'Kofi' },
      { name: 'receiverLastName', value: 'Mensah' },
      { name: 'receiverIdType', value: '2' },
      { name: 'receiverIdNumber', value: 'G1234567' },
    ],
  },
  UG: { service: '1005', country: 'UG', currency: 'UGX', attribute: [{ name: 'receiverName', value: 'Okello Jane' }] },
  EG: { service: '1271', country: 'EG', currency: 'EGP', attribute: [{ name: 'receiverName', value: 'Mona Said' }] },
};

let nextId = 100_000;
/** Fresh digit ids, unique within a test process. */
export function newTransferId(): string {
  nextId += 1;
  return String(nextId);
}

export interface TransferBody {
  id: string;
  sender_phone: string;
  receiver_phone: string;
  amount: string;
  service: string;
  receiver_country: string;
  receiver_currency: string;
  attribute: Array<{ name: string; value: string }>;
}

/** A valid body for the corridor of `country`, to a normal (succeeding) receiver unless overridden. */
export function transferBody(overrides: Partial<TransferBody> & { country?: string; lastFour?: string } = {}): TransferBody {
  const { country = 'KE', lastFour = '5678', ...rest } = overrides;
  const corridor = CORRIDORS[country]!;
  return {
    id: newTransferId(),
    sender_phone: SENDER,
    receiver_phone: receiver(lastFour, country),
    amount: '10.00',
    service: corridor.service,
    receiver_country: corridor.country,
    receiver_currency: corridor.currency,
    attribute: corridor.attribute,
    ...rest,
  };
}

export interface Reply {
  status: number;
  body: unknown;
}

/** Calls the app with a merchant's transfer key. */
export function caller(app: App, apiKey: string) {
  const headers = { 'api-key': apiKey };
  const json = async (response: { statusCode: number; body: string }): Promise<Reply> => ({ status: response.statusCode, body: JSON.parse(response.body) });
  return {
    check: async (body: unknown) => json(await app.inject({ method: 'POST', url: '/api/checkTransfer', headers, payload: body as object })),
    execute: async (body: unknown) => json(await app.inject({ method: 'POST', url: '/api/transfer', headers, payload: body as object })),
    status: async (id: string) => json(await app.inject({ method: 'GET', url: `/api/status/${id}`, headers })),
    kyc: async (account: string) => json(await app.inject({ method: 'GET', url: `/api/kyc/${account}`, headers })),
    balance: async () => json(await app.inject({ method: 'GET', url: '/api/agent_balance', headers })),
    accept: async (account: string) => json(await app.inject({ method: 'POST', url: `/sandbox/invitations/${account}/accept`, headers })),
    verify: async (account: string) => json(await app.inject({ method: 'POST', url: `/sandbox/kyc/${account}/verify`, headers })),
  };
}

export function failure(code: string, message: string): unknown {
  return { success: 'false', error: { message, code } };
}

export function created(id: string, substate = '0'): unknown {
  return { success: true, error: '', payment_response: { id, payment_id: null, state: '0', substate, code: '0' } };
}

export function notFound(id: string): unknown {
  return { success: true, error: '', payment_response: { id, payment_id: null, state: '-2', substate: '0', code: '0' } };
}

/** The status body of a transfer, for exact comparison. */
export function statusBody(
  id: string,
  fields: {
    state: number;
    substate: number;
    final: 0 | 1;
    attribute?: Array<{ name: string; value: string }>;
    serverTimeMs: number;
    trans?: string | null;
    sum_prov?: string | null;
  },
): unknown {
  return {
    success: true,
    error: '',
    status: {
      result: {
        id,
        state: fields.state,
        substate: fields.substate,
        final: fields.final,
        code: 0,
        attribute: fields.attribute ?? [],
        server_time: new Date(fields.serverTimeMs).toISOString(),
        trans: fields.trans ?? null,
        sum_prov: fields.sum_prov ?? null,
      },
    },
  };
}

/** The state changes a transfer went through, oldest first. */
export async function events(service: Service, merchantId: string, id: string): Promise<Array<[number, number]>> {
  const rows = await service.db.read((tx) =>
    tx.all<{ state: number; substate: number }>(
      'SELECT e.state, e.substate FROM transfer_events e JOIN transfers t ON t.pk = e.transfer_pk WHERE t.merchant_id = ? AND t.id = ? ORDER BY e.id',
      [merchantId, id],
    ),
  );
  return rows.map((row) => [Number(row.state), Number(row.substate)]);
}

export async function transferPk(service: Service, merchantId: string, id: string): Promise<number> {
  const row = await service.db.read((tx) => tx.get<{ pk: number }>('SELECT pk FROM transfers WHERE merchant_id = ? AND id = ?', [merchantId, id]));
  assert.ok(row, `transfer ${id} exists`);
  return Number(row.pk);
}

/** The merchant's ledger balances in cents. */
export async function balances(service: Service, merchantId: string): Promise<{ available: number; in_flight: number; paid_out: number }> {
  const read = async (kind: 'available' | 'in_flight' | 'paid_out') =>
    Number(
      (await service.db.read((tx) =>
        tx.get<{ balance_cents: number }>('SELECT balance_cents FROM accounts WHERE id = ?', [merchantAccount(merchantId, kind)]),
      ))!.balance_cents,
    );
  return { available: await read('available'), in_flight: await read('in_flight'), paid_out: await read('paid_out') };
}

export async function assertLedgerOk(service: Service): Promise<void> {
  const report = await verifyLedger(service.db);
  assert.deepEqual(report.problems, []);
  assert.equal(report.ok, true);
}

/**
 * An approved card payin of the merchant, written through the store the way
 * the charge flow records one: the row, its outcome, and its ledger credit.
 */
export async function approvedCharge(
  service: Service,
  merchant: { merchant_id: string; source: { id: string } },
  amountCents: number,
  createdAtMs: number,
): Promise<number> {
  return service.db.write(async (tx) => {
    const pk = await insertPendingCharge(tx, {
      merchant_id: merchant.merchant_id,
      source_id: merchant.source.id,
      amount_cents: amountCents,
      card_type: 'Visa',
      last4: '1111',
      bin: '411111',
      expiry_month: 12,
      expiry_year: 2030,
      card_number_enc: Buffer.from('not a card number'),
      request_json: '{}',
      idem_key: null,
      recover_at_ms: createdAtMs,
      created_at_ms: createdAtMs,
    });
    const recorded = await recordOutcome(
      tx,
      pk,
      'answer',
      {
        status: 'approved',
        auth_code: 'A1B2C3',
        avs_result_code: 'Y',
        cvv_result_code: 'M',
        error_code: null,
        error_message: null,
        processor_ref: `test-${pk}`,
        next_run_at_ms: null,
      },
      createdAtMs,
      false,
    );
    assert.notEqual(recorded, undefined);
    const posted = await post(tx, {
      kind: 'charge.approve',
      debitAccountId: merchantAccount(merchant.merchant_id, 'card_payins'),
      creditAccountId: merchantAccount(merchant.merchant_id, 'available'),
      amountCents,
      merchantId: merchant.merchant_id,
      refId: String(pk),
      nowMs: createdAtMs,
    });
    assert.equal(posted, 'posted');
    return pk;
  });
}
