// What the stand-in checks in an initiate-payout request, as pawaPay's v2
// reference and failure codes describe: a malformed request is refused with
// HTTP 400 (INVALID_INPUT, MISSING_PARAMETER, UNSUPPORTED_PARAMETER,
// INVALID_PARAMETER, DUPLICATE_METADATA_FIELD); a well-formed one that names
// an unknown provider, a number not of its country, another currency, an
// amount with decimals the provider does not take or outside its limits is
// answered 200 REJECTED with the documented code.
import { PROVIDERS, type StandInProvider } from './test-data.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
/** The documented amount format: no leading zeros (but "0.5"), at most two decimals, 1 to 23 characters. */
const AMOUNT = /^(0|[1-9][0-9]{0,17})(\.[0-9]{1,2})?$/;
const CUSTOMER_MESSAGE = /^[A-Za-z0-9 ]{4,22}$/;
const FIELDS = ['payoutId', 'amount', 'currency', 'recipient', 'customerMessage', 'clientReferenceId', 'metadata'];

/** A request refused before it is looked at as a payout (HTTP 400 or the like). */
export class Refusal extends Error {
  constructor(
    readonly httpStatus: number,
    readonly failureCode: string,
    readonly failureMessage: string,
  ) {
    super(failureCode);
  }
}

/** The payoutId of a request body (checked first: duplicates are recognised by it). */
export function payoutIdOf(body: unknown): { payoutId: string; request: Record<string, unknown> } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new Refusal(400, 'INVALID_INPUT', 'The request body is not a JSON object.');
  const request = body as Record<string, unknown>;
  const payoutId = request.payoutId;
  if (typeof payoutId !== 'string') throw new Refusal(400, 'MISSING_PARAMETER', 'payoutId is required.');
  if (!UUID.test(payoutId)) throw new Refusal(400, 'INVALID_PARAMETER', 'payoutId must be a UUIDv4.');
  for (const name of Object.keys(request)) if (!FIELDS.includes(name)) throw new Refusal(400, 'UNSUPPORTED_PARAMETER', `${name} is not supported.`);
  return { payoutId, request };
}

/** Throws a Refusal for a request that is not a well-formed payout. */
export function checkPayoutRequest(request: Record<string, unknown>): void {
  for (const name of ['amount', 'currency', 'recipient']) if (request[name] === undefined) throw new Refusal(400, 'MISSING_PARAMETER', `${name} is required.`);
  const recipient = request.recipient as { type?: unknown; accountDetails?: { phoneNumber?: unknown; provider?: unknown } };
  if (recipient?.type !== 'MMO' || typeof recipient.accountDetails?.phoneNumber !== 'string' || typeof recipient.accountDetails.provider !== 'string') {
    throw new Refusal(400, 'INVALID_PARAMETER', 'recipient must be {type: MMO, accountDetails: {phoneNumber, provider}}.');
  }
  if (request.customerMessage !== undefined && (typeof request.customerMessage !== 'string' || !CUSTOMER_MESSAGE.test(request.customerMessage))) {
    throw new Refusal(400, 'INVALID_PARAMETER', 'customerMessage must be 4 to 22 letters, digits or spaces.');
  }
  if (request.metadata === undefined) return;
  if (!Array.isArray(request.metadata)) throw new Refusal(400, 'INVALID_PARAMETER', 'metadata must be an array.');
  const names = new Set<string>();
  for (const entry of request.metadata as unknown[]) {
    const fields = Object.keys((entry ?? {}) as object).filter((name) => name !== 'isPII');
    if (fields.length !== 1) throw new Refusal(400, 'INVALID_PARAMETER', 'each metadata entry holds one field.');
    if (names.has(fields[0]!)) throw new Refusal(400, 'DUPLICATE_METADATA_FIELD', `${fields[0]} appears twice in metadata.`);
    names.add(fields[0]!);
  }
}

/** Why a well-formed payout is REJECTED, or the provider and number it pays. */
export function payoutRejection(
  request: Record<string, unknown>,
): { readonly failureCode: string; readonly failureMessage: string } | { readonly provider: StandInProvider; readonly phone: string } {
  const details = (request.recipient as { accountDetails: { phoneNumber: string; provider: string } }).accountDetails;
  const provider = PROVIDERS.find((entry) => entry.provider === details.provider);
  if (provider === undefined) return { failureCode: 'INVALID_PROVIDER', failureMessage: 'The provider is not valid for the request.' };
  const phone = details.phoneNumber;
  if (!/^[0-9]+$/.test(phone) || !phone.startsWith(provider.prefix) || phone.length !== provider.prefix.length + provider.nationalDigits) {
    return { failureCode: 'INVALID_PHONE_NUMBER', failureMessage: "The phone number is not a valid MSISDN of the provider's country." };
  }
  if (request.currency !== provider.currency) return { failureCode: 'INVALID_CURRENCY', failureMessage: 'The currency is not supported by the provider.' };
  const amount = request.amount;
  if (typeof amount !== 'string' || !AMOUNT.test(amount) || (provider.decimalsInAmount === 'NONE' && amount.includes('.'))) {
    return { failureCode: 'INVALID_AMOUNT', failureMessage: 'The number of decimal places in the amount is not supported by the provider.' };
  }
  if (Number(amount) < Number(provider.minAmount) || Number(amount) > Number(provider.maxAmount)) {
    return { failureCode: 'AMOUNT_OUT_OF_BOUNDS', failureMessage: 'The amount is outside of the transaction limits for this provider.' };
  }
  return { provider, phone };
}
