// Which payout network pays a transfer (behaviour.md section 18): a corridor
// may name its own connector in the corridors file, else the deployment's
// PAYRAIL_PAYOUT_NETWORK pays it. A transfer records its network at execute
// (transfers.payout_connector), so its submissions, resubmissions and polls
// all go to one network even if the corridors file changes meanwhile: a
// resubmission to another network could pay it twice.
import type { Corridor } from '../../domain/corridors.ts';
import { convertCents } from '../../domain/money.ts';
import { STATE } from '../../domain/transfer-states.ts';
import type { Providers } from '../../providers/index.ts';
import type { PayoutNetwork } from '../../providers/payout-network.ts';

/** The name configuration gives the network of a corridor. */
export function payoutConnectorOf(providers: Providers, corridor: Corridor): string {
  return corridor.payoutConnector ?? providers.defaultPayoutConnector;
}

/** A configured network by name; the default is always `providers.payoutNetwork`. */
function configuredNetwork(providers: Providers, name: string): PayoutNetwork | undefined {
  return name === providers.defaultPayoutConnector ? providers.payoutNetwork : providers.payoutNetworks.get(name);
}

/** The network that pays a corridor's receivers. */
export function payoutNetworkOf(providers: Providers, corridor: Corridor): PayoutNetwork {
  return networkNamed(providers, payoutConnectorOf(providers, corridor));
}

/**
 * The network of a stored transfer: the one recorded at execute. A row
 * without one is older than that column: one that may have been sent
 * (submitted, or at 40) went to the deployment's default network, as every
 * payout did then; one never sent goes to its corridor's. Null when that
 * network is not configured any more (a connector dropped, a corridor
 * removed): the caller waits and says so, it never guesses.
 */
export function payoutNetworkOfTransfer(
  providers: Providers,
  transfer: { readonly payout_connector: string | null; readonly state: number; readonly attempts: number; readonly provider_ref: string | null },
  corridor: Corridor | undefined,
): { readonly name: string; readonly network: PayoutNetwork } | null {
  const maybeSent = transfer.state !== STATE.new || transfer.attempts > 0 || transfer.provider_ref !== null;
  const name =
    transfer.payout_connector ?? (maybeSent ? providers.defaultPayoutConnector : corridor === undefined ? null : payoutConnectorOf(providers, corridor));
  if (name === null) return null;
  const network = configuredNetwork(providers, name);
  return network === undefined ? null : { name, network };
}

function networkNamed(providers: Providers, name: string): PayoutNetwork {
  const network = configuredNetwork(providers, name);
  // createProviders loads every network a corridor names, so this is a programmer error.
  if (network === undefined) throw new Error(`payout network ${name} is not loaded`);
  return network;
}

/**
 * The amount the receiver gets, in the currency's minor units, rounded (half
 * up, once) to the decimals the corridor's network accepts: a network that
 * takes whole units is never asked for a fraction, and what check quoted is
 * what execute records and the network is asked to pay.
 */
export function receivedMinorOf(providers: Providers, corridor: Corridor, amountCents: number, rate: string): number {
  const network = payoutNetworkOf(providers, corridor);
  const accepted = network.amountDecimals?.(corridor) ?? corridor.currencyMinorUnits;
  const decimals = Math.max(0, Math.min(corridor.currencyMinorUnits, Math.trunc(accepted)));
  return convertCents(amountCents, rate, decimals) * 10 ** (corridor.currencyMinorUnits - decimals);
}
