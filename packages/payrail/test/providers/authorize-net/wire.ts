// Wire rules of Authorize.net's JSON API that every request and answer
// shares (API reference, developer.authorize.net/api/reference/index.html,
// "JSON support" notes and the request samples of AuthorizeNet/sample-code-node):
// - one POST to /xml/v1/request.api, a JSON object with one key, the request
//   name, whose answer is named <name minus "Request">Response;
// - the JSON is translated to XML and checked against the XSD, so child
//   elements must come in schema order and unknown ones are refused: E00003
//   with "has invalid child element" (the reference's JSON notes warn of it);
// - every answer starts with a UTF-8 byte order mark and carries
//   messages.resultCode Ok|Error with message[{code,text}];
// - merchantAuthentication {name, transactionKey} fails as E00007.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const BOM = '\uFEFF';
const SCHEMA_NS = 'AnetApi/xml/v1/schema/AnetApiSchema.xsd';

/** API message codes the stand-in answers (API reference, "Response codes": E/I codes). */
export const API_MESSAGES = {
  I00001: 'Successful.',
  I00004: 'No records found.',
  E00001: 'An error occurred during processing. Please try again.',
  E00003: 'An error occurred while parsing the data.',
  E00007: 'User authentication failed due to invalid authentication values.',
  E00013: 'The field is invalid.',
  E00014: 'A required field is not present.',
  E00015: 'The field length is invalid.',
  E00027: 'The transaction was unsuccessful.',
  E00040: 'The record cannot be found.',
} as const;
export type ApiMessageCode = keyof typeof API_MESSAGES;

/** A request refused before it reached the transaction rules: the whole answer is this message. */
export class ApiRefusal extends Error {
  constructor(
    readonly code: ApiMessageCode,
    readonly text: string = API_MESSAGES[code],
  ) {
    super(`${code} ${text}`);
  }
}

export function messages(code: ApiMessageCode, text: string = API_MESSAGES[code]): JsonObject {
  return { resultCode: code.startsWith('I') ? 'Ok' : 'Error', message: [{ code, text }] };
}

/** The answer's text: BOM + JSON, as the real endpoint sends it. */
export function answerText(body: JsonObject): string {
  return BOM + JSON.stringify(body);
}

/** Element order of the XSD types the stand-in reads (AnetApiSchema.xsd, as the API reference lists fields). */
export const SCHEMA_ORDER: Readonly<Record<string, readonly string[]>> = {
  merchantAuthentication: [
    'name',
    'transactionKey',
    'sessionToken',
    'password',
    'impersonationAuthentication',
    'fingerPrint',
    'clientKey',
    'accessToken',
    'mobileDeviceId',
  ],
  createTransactionRequest: ['merchantAuthentication', 'clientId', 'refId', 'transactionRequest'],
  transactionRequest: [
    'transactionType',
    'amount',
    'currencyCode',
    'payment',
    'profile',
    'solution',
    'callId',
    'terminalNumber',
    'authCode',
    'refTransId',
    'splitTenderId',
    'order',
    'lineItems',
    'tax',
    'duty',
    'shipping',
    'taxExempt',
    'poNumber',
    'customer',
    'billTo',
    'shipTo',
    'customerIP',
    'cardholderAuthentication',
    'retail',
    'employeeId',
    'transactionSettings',
    'userFields',
    'surcharge',
    'merchantDescriptor',
    'subMerchant',
    'tip',
    'processingOptions',
    'subsequentAuthInformation',
    'otherTax',
    'shipFrom',
    'authorizationIndicatorType',
  ],
  payment: ['creditCard', 'bankAccount'],
  bankAccount: ['accountType', 'routingNumber', 'accountNumber', 'nameOnAccount', 'echeckType', 'bankName', 'checkNumber'],
  creditCard: ['cardNumber', 'expirationDate', 'cardCode', 'isPaymentToken', 'cryptogram', 'tokenRequestorName', 'tokenRequestorId', 'tokenRequestorEci'],
  order: ['invoiceNumber', 'description', 'discountAmount', 'taxIsAfterDiscount', 'totalTaxTypeCode', 'purchaserVATRegistrationNumber'],
  customer: ['type', 'id', 'email'],
  billTo: ['firstName', 'lastName', 'company', 'address', 'city', 'state', 'zip', 'country', 'phoneNumber', 'faxNumber'],
  transactionSettings: ['setting'],
  setting: ['settingName', 'settingValue'],
  processingOptions: ['isFirstRecurringPayment', 'isFirstSubsequentAuth', 'isSubsequentAuth', 'isStoredCredentials'],
  subsequentAuthInformation: ['originalNetworkTransId', 'originalAuthAmount', 'reason'],
  getTransactionDetailsRequest: ['merchantAuthentication', 'clientId', 'refId', 'transId'],
  getUnsettledTransactionListRequest: ['merchantAuthentication', 'clientId', 'refId', 'status', 'sorting', 'paging'],
  getSettledBatchListRequest: ['merchantAuthentication', 'clientId', 'refId', 'includeStatistics', 'firstSettlementDate', 'lastSettlementDate'],
  getTransactionListRequest: ['merchantAuthentication', 'clientId', 'refId', 'batchId', 'sorting', 'paging'],
  authenticateTestRequest: ['merchantAuthentication', 'clientId', 'refId'],
  updateSplitTenderGroupRequest: ['merchantAuthentication', 'clientId', 'refId', 'splitTenderId', 'splitTenderStatus'],
  sorting: ['orderBy', 'orderDescending'],
  paging: ['limit', 'offset'],
};

/**
 * Refuses an object whose keys are out of schema order or unknown, with the
 * XSD-style E00003 text the real API gives. Checked one level: callers check
 * the nested objects they read.
 */
export function checkOrder(element: string, value: JsonObject): void {
  const order = SCHEMA_ORDER[element];
  if (order === undefined) return;
  let last = -1;
  for (const key of Object.keys(value)) {
    const index = order.indexOf(key);
    if (index <= last) {
      const expected = order.slice(last + 1).map((name) => `'${name}'`);
      throw new ApiRefusal(
        'E00003',
        `The element '${element}' in namespace '${SCHEMA_NS}' has invalid child element '${key}' in namespace '${SCHEMA_NS}'. List of possible elements expected: ${expected.join(', ')} in namespace '${SCHEMA_NS}'.`,
      );
    }
    last = index;
  }
}

export function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A nested object, order-checked; absent: null. A non-object is a schema error. */
export function child(parent: JsonObject, name: string): JsonObject | null {
  const value = parent[name];
  if (value === undefined || value === null) return null;
  if (!isObject(value)) throw new ApiRefusal('E00003', `The '${name}' element is invalid.`);
  checkOrder(name, value);
  return value;
}

/** A simple element as text (the XSD types numbers and booleans as text too); absent: null. */
export function text(parent: JsonObject | null, name: string, maxLength = 255): string | null {
  const value = parent?.[name];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw new ApiRefusal('E00003', `The '${name}' element is invalid.`);
  }
  const result = String(value);
  if (result.length > maxLength) {
    // An XSD maxLength breach is a schema error (E00003), as the API reference's field limits say.
    throw new ApiRefusal(
      'E00003',
      `The '${SCHEMA_NS}:${name}' element is invalid - The value XXXXX is invalid according to its datatype '${SCHEMA_NS}:String${maxLength}' - The actual length is greater than the MaxLength value.`,
    );
  }
  return result;
}

/** An XSD boolean ("true", "false", "1", "0" or a JSON boolean); absent: null. */
export function bool(parent: JsonObject | null, name: string): boolean | null {
  const value = text(parent, name);
  if (value === null) return null;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new ApiRefusal('E00003', `The '${name}' element is invalid - The value '${value}' is invalid according to its datatype 'Boolean'.`);
}

/** A decimal amount in cents; null when absent. More than two decimals or a sign is invalid (reason 5 at the caller). */
export function cents(value: string | null): number | null | 'invalid' {
  if (value === null) return null;
  const match = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(value.trim());
  if (!match) return 'invalid';
  return Number(match[1]) * 100 + Number((match[2] ?? '0').padEnd(2, '0'));
}

/** Cents as the API's decimal (a JSON number with two places at most). */
export function decimal(amountCents: number): number {
  return Math.round(amountCents) / 100;
}
