// Validation of a transfer request (check and execute share it), in a fixed
// order so the same bad request always gets the same error: id, amount,
// corridor, phones, attributes, corridor limits. Everything here is pure and
// cheap (phone parsing is cached), so execute can afford to redo it.
import type { Corridor, CorridorTable } from '../../domain/corridors.ts';
import { formatCents, parseDollarString } from '../../domain/money.ts';
import { parsePhone } from '../../domain/phone.ts';
import { isTransferId, parseReferenceNumber, TRANSFER_ID_LENGTH_MAX } from '../../domain/references.ts';
import { fail } from '../../errors.ts';

export interface Attribute {
  readonly name: string;
  readonly value: string;
}

/** The wire body of check and execute, after schema validation (types are right). */
export interface TransferRequestBody {
  readonly id: string;
  readonly sender_phone: string;
  readonly receiver_phone: string;
  readonly amount: string;
  readonly service: string;
  readonly receiver_country: string;
  readonly receiver_currency: string;
  readonly attribute: readonly Attribute[];
}

export interface ValidTransfer {
  readonly id: string;
  readonly senderPhone: string;
  readonly receiverPhone: string;
  readonly amountCents: number;
  readonly corridor: Corridor;
  readonly attributes: readonly Attribute[];
  /** The charge named by gatewayId (or its other name approvelyId), or null when absent. */
  readonly gatewayChargePk: number | null;
  /** The attribute that named it, for refusals to name what the caller sent. */
  readonly gatewayAttribute: GatewayAttribute;
}

/**
 * The names of the attribute that links a transfer to a card payin:
 * `gatewayId`, and CashQ's `approvelyId` (behaviour.md section 16), read by
 * the same rules. Both may be given when they name the same payin.
 */
export const GATEWAY_ATTRIBUTES = ['gatewayId', 'approvelyId'] as const;
export type GatewayAttribute = (typeof GATEWAY_ATTRIBUTES)[number];

/** The card payin the attributes name, and by which name; refuses a malformed reference and two names that disagree. */
function gatewayLinkOf(byName: ReadonlyMap<string, string>): { chargePk: number | null; attribute: GatewayAttribute } {
  const named: Array<{ attribute: GatewayAttribute; chargePk: number }> = [];
  for (const attribute of GATEWAY_ATTRIBUTES) {
    const value = byName.get(attribute);
    if (value === undefined) continue;
    const chargePk = parseReferenceNumber(value);
    if (chargePk === null) fail('invalid_request', `attribute ${attribute} must be the reference number (digits) of a card payin`);
    named.push({ attribute, chargePk });
  }
  const [first, second] = named;
  if (first === undefined) return { chargePk: null, attribute: 'gatewayId' };
  if (second !== undefined && second.chargePk !== first.chargePk) {
    fail(
      'invalid_request',
      `attributes gatewayId (${first.chargePk}) and approvelyId (${second.chargePk}) name different card payins; they are two names of one attribute: send one`,
    );
  }
  return { chargePk: first.chargePk, attribute: first.attribute };
}

/** National numbers of senders are read as US numbers (docs/api-decisions.md section 4). */
const SENDER_DEFAULT_COUNTRY = 'US';

export function validateTransfer(body: TransferRequestBody, corridors: CorridorTable): ValidTransfer {
  if (!isTransferId(body.id)) fail('invalid_request', `id must be 1 to ${TRANSFER_ID_LENGTH_MAX} digits`);

  const amount = parseDollarString(body.amount);
  if (!amount.ok) fail('invalid_amount', `amount ${amount.reason}`);

  const corridor = corridors.byService(body.service);
  if (corridor === undefined) fail('invalid_request', `service ${JSON.stringify(body.service)} is not a supported corridor`);
  if (body.receiver_country.toUpperCase() !== corridor.country) {
    fail('invalid_request', `receiver_country must be ${corridor.country} for service ${corridor.service}`);
  }
  if (body.receiver_currency.toUpperCase() !== corridor.currency) {
    fail('invalid_request', `receiver_currency must be ${corridor.currency} for service ${corridor.service}`);
  }

  const sender = parsePhone(body.sender_phone, SENDER_DEFAULT_COUNTRY);
  if (!sender.ok) fail('invalid_phone_number', `sender_phone ${sender.reason}`);
  const receiver = parsePhone(body.receiver_phone, corridor.country);
  if (!receiver.ok) fail('invalid_phone_number', `receiver_phone ${receiver.reason}`);
  if (receiver.country !== corridor.country) {
    fail('invalid_request', `receiver_phone is a number of ${receiver.country}, not of ${corridor.country} (service ${corridor.service})`);
  }

  const byName = new Map<string, string>();
  for (const attribute of body.attribute) {
    if (byName.has(attribute.name)) fail('invalid_request', `attribute ${attribute.name} is given twice`);
    byName.set(attribute.name, attribute.value);
  }
  for (const required of corridor.requiredAttributes) {
    const value = byName.get(required.name);
    if (value === undefined || value.trim() === '') {
      fail('invalid_request', `attribute ${required.name} is required for service ${corridor.service}`);
    }
    if (required.allowedValues !== null && !required.allowedValues.includes(value)) {
      fail('invalid_request', `attribute ${required.name} must be ${required.allowedValues.join(' or ')} for service ${corridor.service}`);
    }
  }
  const gateway = gatewayLinkOf(byName);

  if (amount.cents < corridor.minAmountCents) {
    fail('invalid_amount', `amount must be at least ${formatCents(corridor.minAmountCents)} for service ${corridor.service}`);
  }
  if (amount.cents > corridor.maxAmountCents) {
    fail('invalid_amount', `amount must be at most ${formatCents(corridor.maxAmountCents)} for service ${corridor.service}`);
  }

  return {
    id: body.id,
    senderPhone: sender.e164,
    receiverPhone: receiver.e164,
    amountCents: amount.cents,
    corridor,
    attributes: body.attribute,
    gatewayChargePk: gateway.chargePk,
    gatewayAttribute: gateway.attribute,
  };
}
