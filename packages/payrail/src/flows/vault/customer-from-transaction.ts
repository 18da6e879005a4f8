// accept.blue's POST /customers/create-from-transaction: a customer built
// from an earlier transaction of the merchant. What the request gives wins;
// the rest comes from the transaction (its billing address, the name and
// phone on it, and the customer identifier and e-mail it was sent with, when
// it kept them). The transaction is linked to the new customer unless it was
// linked to one already. Answers as POST /customers does.
import { parseReferenceNumber } from '../../domain/references.ts';
import { fail } from '../../errors.ts';
import type { ChargeRow } from '../../store/charges.ts';
import type { CustomerFields } from '../../store/customers.ts';
import { createCustomerFromCharge, type FromChargeRefusal } from '../../store/vault/customer-from-charge.ts';
import { ADDRESS_FIELDS, type AcceptBlueCustomer, type Address } from './acceptblue-views.ts';
import { type CustomerInput, type CustomerView, customerViewFor, newCustomerFields } from './customers.ts';
import { answered, type Created, createOnce } from './keyed-create.ts';
import { failOn, type Owner } from './stored-common.ts';
import type { VaultContext } from './vault-context.ts';

export interface FromTransactionInput extends CustomerInput {
  readonly reference_number: number;
}

/** What a transaction kept of its request that a customer can take (read loosely: older rows lack some). */
interface KeptRequest {
  readonly billing_info?: Partial<Record<string, unknown>>;
  readonly customer?: { readonly identifier?: unknown; readonly email?: unknown };
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The transaction's billing address, its empty members left out (none: undefined). */
function billingOf(kept: KeptRequest): Address | undefined {
  const billing = kept.billing_info ?? {};
  const address = Object.fromEntries(ADDRESS_FIELDS.flatMap((name) => (text(billing[name]) === undefined ? [] : [[name, text(billing[name])]])));
  return Object.keys(address).length === 0 ? undefined : (address as Address);
}

/** The customer's columns: the request's fields over the transaction's; identifier null when neither has one. */
function fieldsFrom(charge: ChargeRow, input: CustomerInput): Omit<CustomerFields, 'identifier'> & { identifier: string | null } {
  const kept = JSON.parse(charge.request_json) as KeptRequest;
  const billing = billingOf(kept);
  const fromTransaction: CustomerInput = {
    identifier: text(kept.customer?.identifier),
    email: text(kept.customer?.email),
    first_name: billing?.first_name,
    last_name: billing?.last_name,
    phone: billing?.phone,
    billing_info: billing,
  };
  const defined = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
  const merged: CustomerInput = { ...fromTransaction, ...defined };
  return { ...newCustomerFields({ ...merged, identifier: merged.identifier ?? '' }), identifier: merged.identifier ?? null };
}

function refuse(refusal: FromChargeRefusal, referenceNumber: number): never {
  if (refusal.kind === 'no-transaction') fail('not_found', `transaction ${referenceNumber} not found`);
  return failOn('identifier', 'invalid_request', 'identifier is required: the transaction has none');
}

export async function createCustomerFromTransaction(
  vault: VaultContext,
  owner: Owner,
  input: FromTransactionInput,
  idempotencyKey: string | null = null,
): Promise<Created<CustomerView | AcceptBlueCustomer>> {
  const { reference_number: referenceNumber, ...customer } = input;
  const chargePk = parseReferenceNumber(String(referenceNumber));
  if (chargePk === null) fail('not_found', `transaction ${referenceNumber} not found`);
  const render = customerViewFor(owner.wireDialect);
  return createOnce(vault.clock, owner, { key: idempotencyKey, operation: 'create-customer-from-transaction', body: input }, async (key) => {
    const answer = await createCustomerFromCharge(vault.db, {
      key,
      merchantId: owner.merchantId,
      chargePk,
      fieldsOf: (charge) => fieldsFrom(charge, customer),
      nowMs: vault.clock.nowMs(),
      render,
    });
    return answered(answer, (refusal) => refuse(refusal, referenceNumber));
  });
}
