// A payout network's callback (flows/providers/callbacks.ts): a hint naming
// a payout, by Payrail's reference (the idempotency key or its UUID form,
// which read back as the transfer's key with no lookup) or by the network's
// own reference of it (transfers_provider_ref). The transfer found is handed
// to the worker's single-transfer step (transfers/advance.ts), which asks
// the network that has the payout and records its answer through the same
// guarded write as the worker's: the callback's own words never move money.
//
// Only a transfer submitted to the network whose callback this is may be
// moved by it: a callback at /providers/a/callbacks naming a payout of
// network b changes nothing.
import type { CallbackHint } from '../../providers/callbacks.ts';
import type { Service } from '../../service.ts';
import { readTransferByPk, readTransfersByProviderRef } from '../../store/transfers/by-reference.ts';
import type { TransferRow } from '../../store/transfers.ts';
import { advanceOneTransfer, type OneTransferOutcome } from '../transfers/advance.ts';

/** What became of a payout hint: the single step's outcome, or why no transfer of this network was found. */
export type PayoutHintResult = OneTransferOutcome | 'no-such-payout' | 'other-network';

/** Longest reference looked at; networks' references are UUIDs or a few dozen characters. */
const REFERENCE_CHARS_MAX = 256;
/** Rows read for one network reference: more than one of this network is ambiguous and moves nothing. */
const SAME_REFERENCE_ROWS_MAX = 4;

export async function applyPayoutHint(
  deps: { readonly service: Service },
  connectorName: string,
  hint: Extract<CallbackHint, { kind: 'payout' }>,
): Promise<PayoutHintResult> {
  const found = await transferOf(deps.service, configuredNamesOf(deps.service, connectorName), hint);
  if (typeof found === 'string') return found;
  return advanceOneTransfer(deps.service, found.pk);
}

/**
 * The names transfers record (transfers.payout_connector: the name
 * configuration gives a network) of the network whose callbacks arrive under
 * `connectorName` (its own name): the same for a built-in connector, a
 * module's path or package name and the name it reports for a module.
 */
function configuredNamesOf(service: Service, connectorName: string): ReadonlySet<string> {
  const names = new Set<string>();
  for (const [configured, network] of service.providers.payoutNetworks) if (network.name === connectorName) names.add(configured);
  return names;
}

/** The transfer a hint names, if it went to this network. */
async function transferOf(
  service: Service,
  names: ReadonlySet<string>,
  hint: Extract<CallbackHint, { kind: 'payout' }>,
): Promise<TransferRow | PayoutHintResult> {
  // Payrail's reference first: it names the transfer whatever the network calls the payout.
  const pk = transferPkOf(service, hint.reference) ?? transferPkOf(service, hint.providerRef);
  if (pk !== null) {
    const row = await readTransferByPk(service.db, pk);
    if (row === undefined) return 'no-such-payout';
    // Not submitted yet (no network has it), or submitted to another network.
    if (row.payout_connector === null) return 'not-at-network';
    return names.has(row.payout_connector) ? row : 'other-network';
  }
  if (hint.providerRef === '' || hint.providerRef.length > REFERENCE_CHARS_MAX) return 'no-such-payout';
  const mine = await readTransfersByProviderRef(service.db, hint.providerRef, [...names], SAME_REFERENCE_ROWS_MAX);
  if (mine.length !== 1) {
    if (mine.length > 1) service.log.warn({ transfers: mine.length }, 'payout callback reference names several transfers; ignored');
    return 'no-such-payout';
  }
  return mine[0]!;
}

/** The transfer key a reference carries (the key itself or its UUID form), or null. */
function transferPkOf(service: Service, reference: string | null): number | null {
  if (reference === null || reference === '' || reference.length > REFERENCE_CHARS_MAX) return null;
  const parsed = service.providerKeys.parse(reference) ?? service.providerKeys.parseUuid(reference);
  return parsed?.kind === 'transfer' ? parsed.pk : null;
}
