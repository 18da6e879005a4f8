// @ts-check
// The Payrail client every example uses, configured from the environment
// (`npm run examples` sets it; against your own server, copy the values the
// first `payrail serve` prints).
import { Payrail } from '@payrail/client';

/** @param {string} name */
function required(name) {
  const value = process.env[name];
  if (value === undefined || value === '') {
    console.error(`Set ${name}: see examples/README.md`);
    process.exit(2);
  }
  return value;
}

export function payrailFromEnv() {
  return new Payrail({
    base_url: required('PAYRAIL_URL'),
    api_key: required('PAYRAIL_API_KEY'),
    payin: {
      api_key: required('PAYRAIL_SOURCE_KEY'),
      pin: required('PAYRAIL_SOURCE_PIN'),
      tokenization_token: required('PAYRAIL_TOKENIZATION_TOKEN'),
    },
  });
}

/** Sandbox receivers are chosen by the last four digits (see the sandbox table). */
export const SENDER_PHONE = '+14155552671';

/**
 * Stops the example with a clear message when an outcome is not the expected one.
 * @param {boolean} condition
 * @param {string} message
 * @returns {asserts condition}
 */
export function expect(condition, message) {
  if (!condition) throw new Error(`unexpected: ${message}`);
}
