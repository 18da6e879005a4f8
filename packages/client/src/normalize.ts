// Reads wire answers into the SDK's result types. The wire sends some
// numbers as strings (execute's state "0") and others as numbers (status),
// and the same operation in more than one shape; these readers accept every
// documented form and refuse anything else as unexpected_response.
import { CLIENT_ERROR_CODES, PayrailError } from './errors.ts';
import { centsOfWireDollars, parseDollars } from './money.ts';
import type { Balance, Charge, ChargeStatus, CheckResult, KycResult, ListedTransfer, Nonce, TransferOutcome, TransferPage, TransferStatus } from './types.ts';
import type { Attribute, ChargeApprovedWire, ChargeDeclinedWire } from './wire.ts';

/** Transfer states of the specification. */
export const STATE_NEW = 0;
export const STATE_PROCESSING = 40;
export const STATE_SUCCESS = 60;
export const STATE_ERROR = 80;
export const STATE_NOT_FOUND = -2;
/** Substate of a new transfer held until an invitation is accepted or a payin is linked. */
export const SUBSTATE_WAITING = 9;

type Json = Record<string, unknown>;

function bad(what: string, value: unknown): PayrailError {
  return new PayrailError(CLIENT_ERROR_CODES.unexpected_response, 200, `unexpected ${what} in the answer: ${JSON.stringify(value)?.slice(0, 200)}`);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function objectAt(body: Json, key: string): Json {
  const value = body[key];
  if (!isObject(value)) throw bad(key, value);
  return value;
}

function stringAt(body: Json, key: string): string {
  const value = body[key];
  if (typeof value !== 'string') throw bad(key, value);
  return value;
}

function optionalString(body: Json, key: string): string | null {
  const value = body[key];
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  throw bad(key, value);
}

/** An integer the wire sends as a number or as a string of digits. */
function integerAt(body: Json, key: string): number {
  const value = body[key];
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /^-?[0-9]{1,15}$/.test(value)) return Number(value);
  throw bad(key, value);
}

function attributesOf(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!Array.isArray(value)) throw bad('attribute', value);
  const map: Record<string, string> = {};
  for (const item of value) {
    if (!isObject(item) || typeof item.name !== 'string' || typeof item.value !== 'string') throw bad('attribute', item);
    map[item.name] = item.value;
  }
  return map;
}

/** The wire array of attributes from a caller's map or array. */
export function attributeArray(value: Record<string, string> | Attribute[] | undefined): Attribute[] {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value.map((a) => ({ name: a.name, value: a.value }));
  return Object.entries(value).map(([name, v]) => ({ name, value: v }));
}

export function readBalance(body: Json): Balance {
  const balance = objectAt(body, 'balance');
  const balance_cents = integerAt(balance, 'balance');
  const overdraft_cents = integerAt(balance, 'overdraft');
  return { balance_cents, overdraft_cents, available_cents: balance_cents + overdraft_cents };
}

export function readKyc(account: string, body: Json): KycResult {
  const verified = body.kyc_verify;
  if (typeof verified !== 'boolean') throw bad('kyc_verify', verified);
  const money_limit = stringAt(body, 'money_limit');
  const money_limit_cents = parseDollars(money_limit);
  if (money_limit_cents === null) throw bad('money_limit', money_limit);
  const url = optionalString(body, 'kyc_url');
  return { account, registered: true, verified, money_limit_cents, money_limit, kyc_url: url === null || url === '' ? null : url };
}

export function unregisteredKyc(account: string): KycResult {
  return { account, registered: false, verified: false, money_limit_cents: 0, money_limit: '0', kyc_url: null };
}

export function readCheck(body: Json): CheckResult {
  const attributes = attributesOf(body.attribute);
  const fx_rate = attributes.fx_rate;
  if (fx_rate === undefined) throw bad('attribute (no fx_rate)', body.attribute);
  const receiverStatus = attributes.receiverStatus;
  return {
    fx_rate,
    received_amount: attributes.receivedAmount ?? null,
    receiver_status: receiverStatus === 'registered' || receiverStatus === 'unregistered' ? receiverStatus : null,
    attributes,
  };
}

function outcomeOf(state: number, substate: number, final: boolean): TransferOutcome {
  if (state === STATE_SUCCESS) return 'succeeded';
  if (state === STATE_ERROR) return 'failed';
  if (state === STATE_NOT_FOUND) return 'not_found';
  if (final) return 'failed';
  if (state === STATE_NEW) return substate === SUBSTATE_WAITING ? 'waiting' : 'new';
  return 'processing';
}

/** States whose `final` is 1 by the specification's table. */
function isFinalState(state: number): boolean {
  return state === STATE_SUCCESS || state === STATE_ERROR || state === STATE_NOT_FOUND;
}

function statusOf(fields: {
  id: string;
  state: number;
  substate: number;
  code: number;
  final: boolean;
  attributes: Record<string, string>;
  payment_id: string | null;
  server_time: string | null;
  trans: string | null;
  sum_prov: string | null;
}): TransferStatus {
  const outcome = outcomeOf(fields.state, fields.substate, fields.final);
  const waitingFor = fields.attributes.waitingFor;
  const errorText = fields.attributes['provider-error-text'];
  const errorCode = fields.attributes['provider-error-code'];
  return {
    ...fields,
    outcome,
    waiting_for: outcome === 'waiting' && (waitingFor === 'invitation' || waitingFor === 'reconciliation') ? waitingFor : null,
    invitation_url: fields.attributes.invitationUrl ?? null,
    gateway_id: fields.attributes.gatewayId ?? null,
    provider_error: errorText !== undefined || errorCode !== undefined ? { text: errorText ?? '', code: errorCode ?? '' } : null,
  };
}

/** Execute's `payment_response` (strings for numbers); also the status of an unknown id. */
export function readPaymentResponse(body: Json): TransferStatus {
  const payment = objectAt(body, 'payment_response');
  const state = integerAt(payment, 'state');
  return statusOf({
    id: stringAt(payment, 'id'),
    state,
    substate: integerAt(payment, 'substate'),
    code: integerAt(payment, 'code'),
    final: isFinalState(state),
    attributes: {},
    payment_id: optionalString(payment, 'payment_id'),
    server_time: null,
    trans: null,
    sum_prov: null,
  });
}

/** GET /api/status/:id in either of its two shapes. */
export function readStatus(body: Json): TransferStatus {
  if (body.status === undefined && body.payment_response !== undefined) return readPaymentResponse(body);
  return readStatusResult(objectAt(objectAt(body, 'status'), 'result'));
}

/** A status `result` object: in a status answer, or an item of the transfer list. */
function readStatusResult(result: Json): TransferStatus {
  const state = integerAt(result, 'state');
  const final = result.final === undefined ? isFinalState(state) : integerAt(result, 'final') === 1;
  const trans = optionalString(result, 'trans');
  return statusOf({
    id: stringAt(result, 'id'),
    state,
    substate: integerAt(result, 'substate'),
    code: integerAt(result, 'code'),
    final,
    attributes: attributesOf(result.attribute),
    payment_id: trans,
    server_time: optionalString(result, 'server_time'),
    trans,
    sum_prov: optionalString(result, 'sum_prov'),
  });
}

/** GET /api/transfers: one page of the merchant's transfers, each a status result plus what was sent. */
export function readTransferPage(body: Json): TransferPage {
  const items = body.transfers;
  if (!Array.isArray(items)) throw bad('transfers', items);
  const hasMore = body.has_more;
  if (typeof hasMore !== 'boolean') throw bad('has_more', hasMore);
  return { transfers: items.map(readListedTransfer), has_more: hasMore };
}

function readListedTransfer(item: unknown): ListedTransfer {
  if (!isObject(item)) throw bad('transfer', item);
  const amount = stringAt(item, 'amount');
  const amount_cents = parseDollars(amount);
  if (amount_cents === null) throw bad('amount', amount);
  return {
    ...readStatusResult(item),
    amount,
    amount_cents,
    receiver_phone: stringAt(item, 'receiver_phone'),
    service: stringAt(item, 'service'),
    receiver_country: stringAt(item, 'receiver_country'),
    receiver_currency: stringAt(item, 'receiver_currency'),
    created_at: stringAt(item, 'created_at'),
  };
}

/** The status of an id the server reports as unknown. */
export function notFoundStatus(id: string): TransferStatus {
  return statusOf({
    id,
    state: STATE_NOT_FOUND,
    substate: 0,
    code: 0,
    final: true,
    attributes: {},
    payment_id: null,
    server_time: null,
    trans: null,
    sum_prov: null,
  });
}

const STATUS_CODES: Readonly<Record<string, ChargeStatus>> = { A: 'approved', P: 'pending', D: 'declined', F: 'failed' };
const STATUS_TEXTS: ReadonlySet<string> = new Set(['approved', 'declined', 'pending', 'failed']);

function chargeStatusOf(text: unknown, code: unknown): ChargeStatus {
  const lower = typeof text === 'string' ? text.toLowerCase() : '';
  if (STATUS_TEXTS.has(lower)) return lower as ChargeStatus;
  const byCode = typeof code === 'string' ? STATUS_CODES[code] : undefined;
  if (byCode !== undefined) return byCode;
  throw bad('status', text);
}

function wireCents(value: unknown, what: string): number {
  const cents = centsOfWireDollars(value);
  if (cents === null) throw bad(what, value);
  return cents;
}

/** A charge in shape A (approved/pending) or shape B (declined/failed). */
export function readCharge(body: Json): Charge {
  if (isObject(body.error) && typeof body.id === 'string') {
    const declined = body as unknown as ChargeDeclinedWire;
    const card = isObject(body.card) ? body.card : {};
    const error = body.error as Json;
    return {
      reference_number: declined.id,
      status: chargeStatusOf(body.status, undefined),
      amount_cents: wireCents(body.amount, 'amount'),
      currency: typeof body.currency === 'string' ? body.currency : 'USD',
      card_type: typeof card.card_type === 'string' ? card.card_type : '',
      last_4: typeof card.last_four === 'string' ? card.last_four : '',
      auth_code: null,
      avs_result_code: null,
      cvv2_result_code: null,
      error: { code: String(error.code), message: typeof error.message === 'string' ? error.message : String(error.code) },
      created_at: optionalString(body, 'created_at'),
      raw: declined,
    };
  }
  const approved = body as unknown as ChargeApprovedWire;
  const transaction = isObject(body.transaction) ? body.transaction : {};
  const reference = body.reference_number ?? transaction.id;
  if ((typeof reference !== 'number' || !Number.isSafeInteger(reference)) && (typeof reference !== 'string' || !/^[0-9]+$/.test(reference))) {
    throw bad('reference_number', reference);
  }
  const amountDetails = isObject(transaction.amount_details) ? transaction.amount_details : {};
  return {
    reference_number: String(reference),
    status: chargeStatusOf(body.status, body.status_code),
    amount_cents: wireCents(body.auth_amount ?? amountDetails.amount, 'auth_amount'),
    currency: 'USD',
    card_type: typeof body.card_type === 'string' ? body.card_type : '',
    last_4: typeof body.last_4 === 'string' ? body.last_4 : '',
    auth_code: optionalString(body, 'auth_code'),
    avs_result_code: optionalString(body, 'avs_result_code'),
    cvv2_result_code: optionalString(body, 'cvv2_result_code'),
    error: null,
    created_at: optionalString(transaction, 'created_at'),
    raw: approved,
  };
}

export function readNonce(body: Json): Nonce {
  return {
    nonce: stringAt(body, 'nonce'),
    expires_at: stringAt(body, 'expires_at'),
    card_type: stringAt(body, 'card_type'),
    last_4: stringAt(body, 'last_4'),
  };
}
