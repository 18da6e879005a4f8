// The identifiers merchants see and send back: card reference numbers (the
// charge's key, named by gatewayId) and transfer ids. Each pattern is written
// here once; every layer that reads one parses it with these functions.

/** Reference numbers are positive integers well inside 2^53, so they survive JSON numbers. */
const REFERENCE_NUMBER_PATTERN = /^[1-9][0-9]{0,14}$/;
/** The longest reference number, in digits. */
export const REFERENCE_NUMBER_DIGITS_MAX = 15;

/** The reference number in `text`, or null when it is not one. */
export function parseReferenceNumber(text: string): number | null {
  return REFERENCE_NUMBER_PATTERN.test(text) ? Number(text) : null;
}

/** Transfer ids are digits only, chosen by the merchant. */
export const TRANSFER_ID_LENGTH_MAX = 40;
const TRANSFER_ID_PATTERN = new RegExp(`^[0-9]{1,${TRANSFER_ID_LENGTH_MAX}}$`);

export function isTransferId(text: string): boolean {
  return TRANSFER_ID_PATTERN.test(text);
}
