// The idempotency key each provider call names its record by (behaviour.md
// section 18): one helper per kind of record, so no call site builds a key by
// hand and every key carries this installation's prefix
// (domain/provider-keys.ts). Charges, refunds and unmatched credits share the
// charges table and its primary keys; a capture or void is named by its
// charge's key, a refund by its own and its charge's.
import type { ProviderKeys } from '../../domain/provider-keys.ts';

/** The key of a charge, refund or credit (a row of the charges table). */
export function chargeReference(keys: ProviderKeys, pk: number): string {
  return keys.key('charge', pk);
}

/** The key of a verification. */
export function verificationReference(keys: ProviderKeys, pk: number): string {
  return keys.key('verification', pk);
}

/** The payout network's idempotency key of a transfer. */
export function transferReference(keys: ProviderKeys, pk: number): string {
  return keys.key('transfer', pk);
}

/** The same key in UUID form, for networks whose references must be UUIDs (MTN MoMo, pawaPay). */
export function transferUuid(keys: ProviderKeys, pk: number): string {
  return keys.uuid('transfer', pk);
}
