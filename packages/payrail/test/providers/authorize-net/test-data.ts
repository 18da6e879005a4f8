// The stand-in's test data: what Authorize.net's sandbox does with the card
// numbers, ZIP codes, card codes and amounts its testing guide lists, so a
// test written against the stand-in means the same thing against the sandbox.
// Sources (read, not copied):
// - Testing guide, developer.authorize.net/hello_world/testing_guide.html
//   ("Test card numbers", "Testing AVS / CVV / General responses using ZIP
//   codes and card codes", "Generating specific response reason codes": card
//   4222222222222 with an amount equal to the wanted reason code).
// - Response code reference, developer.authorize.net/api/reference/responseCodes.html
//   (response code 1 approved, 2 declined, 3 error, 4 held for review; the
//   reason texts below).

/** Card numbers of the testing guide; any other Luhn-valid number is also approved, as in the sandbox. */
export const TEST_CARDS = {
  visa: '4111111111111111',
  visaShort: '4007000000027',
  visaAlt: '4012888818888',
  mastercard: '5424000000000015',
  mastercard2Series: '2223000010309703',
  amex: '370000000000002',
  discover: '6011000000000012',
  jcb: '3088000000000017',
  diners: '38000000000006',
  /** The guide's card for forcing a reason code: amount (whole dollars) = the reason code. */
  reasonCodeTrigger: '4222222222222',
} as const;

/** testing guide, "General responses": this billing ZIP declines (response 2, reason 2). */
export const DECLINE_ZIP = '46282';

/**
 * Stand-in only (the sandbox holds a transaction for review only through the
 * merchant's Fraud Detection Suite filters, which no request can set): this
 * billing ZIP answers responseCode 4, reason 252, status FDSPendingReview.
 * Resolve with the stand-in's resolveHeld().
 */
export const HELD_ZIP = '46999';

/**
 * testing guide, "Partial authorization responses": this billing ZIP
 * approves $1.23 of a larger amount when the request sent allowPartialAuth
 * (reason 295, a split tender group to release). The guide's 46226..46228
 * (balances on card) are not modelled.
 */
export const PARTIAL_ZIP = '46225';
export const PARTIAL_APPROVED_CENTS = 123;
export const PARTIAL_REASON = 295;

/** testing guide, "AVS responses": billing ZIP -> avsResultCode. Any other ZIP with an address: Y. */
export const AVS_BY_ZIP: Readonly<Record<string, string>> = {
  '46201': 'A',
  '46203': 'E',
  '46204': 'G',
  '46205': 'N',
  '46206': 'P',
  '46207': 'R',
  '46208': 'S',
  '46209': 'U',
  '46211': 'W',
  '46214': 'X',
  '46217': 'Z',
};

/** testing guide, "CVV responses": cardCode -> cvvResultCode. Any other code: M; no code: "" (not checked). */
export const CVV_BY_CARD_CODE: Readonly<Record<string, string>> = {
  '900': 'M',
  '901': 'N',
  '902': 'S',
  '903': 'U',
  '904': 'P',
};

export interface ReasonCode {
  readonly responseCode: '1' | '2' | '3' | '4';
  readonly text: string;
}

/** The reason codes the stand-in answers, from the response code reference. */
export const REASONS = {
  1: { responseCode: '1', text: 'This transaction has been approved.' },
  2: { responseCode: '2', text: 'This transaction has been declined.' },
  3: { responseCode: '2', text: 'This transaction has been declined.' },
  4: { responseCode: '2', text: 'This transaction has been declined.' },
  5: { responseCode: '3', text: 'A valid amount is required.' },
  6: { responseCode: '3', text: 'The credit card number is invalid.' },
  7: { responseCode: '3', text: 'Credit card expiration date is invalid.' },
  8: { responseCode: '3', text: 'The credit card has expired.' },
  9: { responseCode: '3', text: 'The ABA code is invalid' },
  10: { responseCode: '3', text: 'The account number is invalid' },
  11: { responseCode: '3', text: 'A duplicate transaction has been submitted.' },
  16: { responseCode: '3', text: 'The transaction cannot be found.' },
  19: { responseCode: '3', text: 'An error occurred during processing. Please try again in 5 minutes.' },
  27: {
    responseCode: '2',
    text: 'The transaction has been declined because of an AVS mismatch. The address provided does not match billing address of cardholder.',
  },
  33: { responseCode: '3', text: 'FIELD cannot be left blank.' },
  35: { responseCode: '3', text: 'An error occurred during processing. Call Merchant Service Provider.' },
  44: { responseCode: '2', text: 'This transaction has been declined.' },
  45: { responseCode: '2', text: 'This transaction has been declined.' },
  47: { responseCode: '3', text: 'The amount requested for settlement cannot be greater than the original amount authorized.' },
  54: { responseCode: '3', text: 'The referenced transaction does not meet the criteria for issuing a credit.' },
  55: { responseCode: '3', text: 'The sum of credits against the referenced transaction would exceed original debit amount.' },
  65: { responseCode: '2', text: 'This transaction has been declined.' },
  78: { responseCode: '3', text: 'The Card Code is invalid.' },
  252: { responseCode: '4', text: 'Your order has been received. Thank you for your business!' },
  253: { responseCode: '4', text: 'Your order has been received. Thank you for your business!' },
  295: {
    responseCode: '4',
    text: 'The amount of this request was only partially approved on the given prepaid card. An additional payment is required to fulfill the balance of this transaction.',
  },
  246: { responseCode: '3', text: 'This eCheck.Net type is not allowed.' },
  310: { responseCode: '1', text: 'This transaction has already been voided.' },
  311: { responseCode: '1', text: 'This transaction has already been captured.' },
} as const satisfies Readonly<Record<number, ReasonCode>>;
export type ReasonNumber = keyof typeof REASONS;

/** The card brand Authorize.net names in accountType, from the number's prefix. */
export function accountTypeOf(cardNumber: string): string {
  if (/^4/.test(cardNumber)) return 'Visa';
  if (/^(5[1-5]|2[2-7])/.test(cardNumber)) return 'MasterCard';
  if (/^3[47]/.test(cardNumber)) return 'AmericanExpress';
  if (/^(6011|65|64[4-9])/.test(cardNumber)) return 'Discover';
  if (/^35/.test(cardNumber)) return 'JCB';
  if (/^3[068]/.test(cardNumber)) return 'DinersClub';
  return 'Unknown';
}

export function luhnValid(digits: string): boolean {
  if (!/^\d{13,16}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/**
 * expirationDate as the API reference accepts it ("YYYY-MM", "MMYY",
 * "MM/YY", "MMYYYY", "MM/YYYY"); null when it is none of those.
 */
export function parseExpiry(text: string): { readonly year: number; readonly month: number } | null {
  const iso = /^(\d{4})-(\d{2})$/.exec(text);
  const short = /^(\d{2})\/?(\d{2}|\d{4})$/.exec(text);
  const [year, month] = iso
    ? [Number(iso[1]), Number(iso[2])]
    : short
      ? [Number(short[2]!.length === 2 ? `20${short[2]}` : short[2]), Number(short[1])]
      : [0, 0];
  if (month < 1 || month > 12) return null;
  return { year, month };
}

/**
 * eCheck test data. The sandbox approves any eCheck with a valid routing
 * number (ABA check digit) and account number, and never settles or returns
 * one on demand; these are stand-in only, chosen by the account number's
 * last four digits (different from Payrail's own sandbox network's, so a
 * test never confuses the two):
 * - ECHECK_DECLINE_LAST4: declined (response 2, reason 2);
 * - ECHECK_RETURNS: settled, then returned with that code at the next
 *   settle() after the one that settled it (as the bank's return reaches
 *   Authorize.net a day or more after settlement).
 * Any eCheck can also be returned by the control verb returnItem.
 */
export const ECHECK_DECLINE_LAST4 = '7999';
export const ECHECK_RETURNS: Readonly<Record<string, { readonly code: string; readonly description: string }>> = {
  '7001': { code: 'R01', description: 'Insufficient Funds' },
  '7002': { code: 'R02', description: 'Account Closed' },
  '7003': { code: 'R03', description: 'No Account/Unable to Locate Account' },
  '7010': { code: 'R10', description: 'Customer Advises Not Authorized' },
};

/** Whether nine digits pass the ABA check digit (3, 7, 1 weights). */
export function abaValid(routingNumber: string): boolean {
  if (!/^\d{9}$/.test(routingNumber)) return false;
  const d = [...routingNumber].map(Number);
  return (3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!)) % 10 === 0;
}
