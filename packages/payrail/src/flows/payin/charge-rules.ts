// Rules of a charge or verify request that depend on more than one field or
// on the caller's dialect (docs/acceptblue-compatibility.md): the accept.blue
// charge kinds Payrail does not offer, and the interface spec's billing
// address rules, which the spec dialect keeps while an accept.blue caller may
// send any part of an address, or none.
import { ApiError } from '../../errors.ts';
import type { Address } from './charge-extras.ts';

/** accept.blue's DAF processors: a DafCardCharge names one as its `source`. */
const DAF_SOURCES = new Set(['pledger', 'donors_fund', 'ojc']);
const WALLET_SOURCES = new Set(['googlepay', 'applepay']);

interface OfferedFields {
  readonly source?: string | undefined;
  readonly magstripe?: string | undefined;
  readonly terminal_id?: string | number | undefined;
  readonly token?: unknown;
}

const refuse = (message: string, field: string): never => {
  throw new ApiError('not_offered', message, undefined, field);
};

/** Refuses the accept.blue charges Payrail does not offer, saying which. */
export function checkOffered(request: OfferedFields): void {
  const source = request.source;
  if (source !== undefined && WALLET_SOURCES.has(source)) refuse(`digital wallet payments (source ${source}) are not offered`, 'source');
  if (source !== undefined && DAF_SOURCES.has(source)) refuse(`donor-advised fund cards (source ${source}) are not offered`, 'source');
  if (request.token !== undefined) refuse('digital wallet payments (token) are not offered', 'token');
  if (request.magstripe !== undefined) refuse('card-present (magstripe) payments are not offered', 'magstripe');
  if (request.terminal_id !== undefined) refuse('terminal payments (terminal_id) are not offered', 'terminal_id');
}

/** The interface spec's billing address: these members required, not empty, and at most this long. */
const SPEC_BILLING_MAX: Readonly<Record<keyof Address, { max: number; required: boolean }>> = {
  first_name: { max: 100, required: true },
  last_name: { max: 100, required: true },
  street: { max: 200, required: true },
  street2: { max: 200, required: false },
  city: { max: 100, required: true },
  state: { max: 64, required: true },
  zip: { max: 20, required: true },
  country: { max: 64, required: true },
  phone: { max: 32, required: false },
};

const invalid = (message: string, field: string): never => {
  throw new ApiError('invalid_request', message, undefined, field);
};

/** The spec dialect's rules for a billing address sent (worded as the schema's refusals). */
export function checkSpecBilling(billing: Address | undefined): void {
  if (billing === undefined) return;
  for (const [name, rule] of Object.entries(SPEC_BILLING_MAX) as [keyof Address, { max: number; required: boolean }][]) {
    const value = billing[name];
    const field = `billing_info.${name}`;
    if (value === undefined) {
      if (rule.required) invalid(`${field} is required`, field);
      continue;
    }
    if (rule.required && value.length < 1) invalid(`${field} must NOT have fewer than 1 characters`, field);
    if (value.length > rule.max) invalid(`${field} must NOT have more than ${rule.max} characters`, field);
  }
}
