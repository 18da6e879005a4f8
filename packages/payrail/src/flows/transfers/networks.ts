// Which payout network pays a transfer (behaviour.md section 18): a corridor
// may name its own connector in the corridors file, else the deployment's
// PAYRAIL_PAYOUT_NETWORK pays it. A transfer keeps the network it was first
// submitted to (transfers.payout_connector), so polls and resubmissions ask
// the network that has the payout even if the corridors file changes later.
import type { Corridor } from '../../domain/corridors.ts';
import { convertCents } from '../../domain/money.ts';
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
 * The network of a stored transfer: the one it was submitted to, else its
 * corridor's. Null when neither is configured any more (a corridor removed
 * from the file, a connector dropped): the caller waits and says so.
 */
export function payoutNetworkOfTransfer(
  providers: Providers,
  transfer: { readonly payout_connector: string | null },
  corridor: Corridor | undefined,
): { readonly name: string; readonly network: PayoutNetwork } | null {
  const name = transfer.payout_connector ?? (corridor === undefined ? null : payoutConnectorOf(providers, corridor));
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
