// Providers: the card processor, payout network, KYC and FX connectors. Each
// is an interface with a sandbox simulator behind it; a production
// deployment chooses a connector Payrail ships by its name (`authorize-net`)
// or names a module in configuration that exports a factory
// `create(context)` returning the same interface. The flows never know which
// one is plugged in, and no connector is handed the database or secrets it
// does not need: only the few settings below, and a built-in one its own.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Logger } from 'pino';
import { DEFAULT_ACH_CUTOFF_UTC } from '../domain/ach.ts';
import { parseCloseTime } from '../domain/card-lifecycle.ts';
import type { Clock } from '../domain/clock.ts';
import { connectorChoiceProblem, type ConnectorSlot, NO_ACH_NETWORK } from '../domain/connector-spec.ts';
import type { CorridorTable } from '../domain/corridors.ts';
import type { Environment } from '../domain/credentials.ts';
import { createAuthorizeNet, createAuthorizeNetEcheck, type AuthorizeNetSettings } from './authorize-net/index.ts';
import { createMtnMomo, type MtnMomoSettings } from './mtn-momo/index.ts';
import type { CardProcessor } from './card-processor.ts';
import { SandboxCardProcessor } from './card-processor-sandbox.ts';
import { checkCardProcessor } from './card-processor.ts';
import { achNetworkWithBreaker, cardProcessorWithBreaker, fxWithBreaker, kycWithBreaker, payoutNetworkWithBreaker } from './connector-breakers.ts';
import type { FxProvider } from './fx.ts';
import type { KycConnector } from './kyc.ts';
import { createOpenExchangeRates, type OpenExchangeRatesSettings } from './openexchangerates/index.ts';
import type { PayoutNetwork } from './payout-network.ts';
import { createPawaPay, type PawaPaySettings } from './pawapay/index.ts';
import { type AchNetwork, checkAchNetwork } from './ach-network.ts';
import { type AchClocks, SandboxAchNetwork } from './sandbox/ach-network.ts';
import { SandboxFx } from './sandbox/fx.ts';
import { SandboxKyc } from './sandbox/kyc.ts';
import { SandboxPayoutNetwork } from './sandbox/payout-network.ts';
import { SandboxReceivers, type ReceiverStates } from './sandbox/receivers.ts';
import { createVeriff, type VeriffSettings } from './veriff/index.ts';

const DEFAULT_ACH_CUTOFF_MINUTE = parseCloseTime(DEFAULT_ACH_CUTOFF_UTC)!;

/** What a connector factory receives. */
export interface ProviderContext {
  readonly environment: Environment;
  /** Base of links handed to receivers (KYC pages, invitations). */
  readonly publicUrl: string;
  /** Step of every sandbox scenario (0 makes them immediate). */
  readonly sandboxDelayMs: number;
  readonly clock: Clock;
  readonly log: Logger;
  /** Minutes after midnight UTC of the daily ACH cut-off (the sandbox ACH network originates then); absent: 21:00. */
  readonly achCutoffMinuteOfDay?: number;
}

/** The connector configured for each slot: `sandbox`, a built-in name or a module. */
export type ProviderChoice = Readonly<Record<ConnectorSlot, string>>;

/** Settings of the built-in connectors (config/ reads them); null for one not chosen. */
export interface BuiltInConnectorSettings {
  readonly authorizeNet: AuthorizeNetSettings | null;
  readonly mtnMomo: MtnMomoSettings | null;
  readonly veriff: VeriffSettings | null;
  readonly pawaPay: PawaPaySettings | null;
  readonly openExchangeRates: OpenExchangeRatesSettings | null;
}

/** A built-in connector's factory, by its name. */
type BuiltIns<T> = Readonly<Record<string, () => T | Promise<T>>>;

export interface Providers {
  readonly cardProcessor: CardProcessor;
  /** The deployment's payout network (PAYRAIL_PAYOUT_NETWORK): for corridors that name none. */
  readonly payoutNetwork: PayoutNetwork;
  /** The name configuration gives it (`sandbox`, `mtn-momo`, a module path). */
  readonly defaultPayoutConnector: string;
  /** Every payout network in use, by the name configuration gives it (the default's included); flows/transfers/networks.ts picks one. */
  readonly payoutNetworks: ReadonlyMap<string, PayoutNetwork>;
  /** A look-up provider (the sandbox, modules) or one working in sessions (veriff): flows/transfers/lookups.ts handles both. */
  readonly kyc: KycConnector;
  readonly fx: FxProvider;
  /** The ACH network of check payments; null when none is configured (PAYRAIL_ACH_NETWORK=none): checks are then refused. */
  readonly achNetwork: AchNetwork | null;
}

/**
 * Loads a configured connector: `sandbox` returns the simulator, a built-in
 * name of this slot the connector Payrail ships, anything else is imported
 * as a module whose `create(context)` builds the connector. Only a file path
 * or an installed package name is imported, never a URL (a `data:` URL
 * would be code carried in the configuration itself), and never a name of
 * a built-in connector (of any slot, shipped or coming).
 */
export async function loadProvider<T>(
  spec: string,
  context: ProviderContext,
  simulator: () => T,
  slot: ConnectorSlot = 'cardProcessor',
  builtIns: BuiltIns<T> = {},
): Promise<T> {
  if (spec === 'sandbox') return simulator();
  const builtIn = Object.hasOwn(builtIns, spec) ? builtIns[spec] : undefined;
  if (builtIn !== undefined) return builtIn();
  const problem = connectorChoiceProblem(slot, spec);
  if (problem !== null) throw new Error(`connector module "${spec.slice(0, 80)}" refused: it ${problem}`);
  const url = spec.startsWith('.') || path.isAbsolute(spec) ? pathToFileURL(path.resolve(spec)).href : spec;
  const module = (await import(url)) as { create?: (context: ProviderContext) => T | Promise<T> };
  if (typeof module.create !== 'function') throw new Error(`provider module ${spec} must export create(context)`);
  return module.create(context);
}

/**
 * Every configured connector stands behind a circuit breaker of its own
 * (connector-breakers.ts); the sandbox simulators answer in-process and
 * never fail as a provider does, so they have none.
 */
function withBreaker<T>(spec: string, connector: T, wrap: (connector: T, log: Logger) => T, log: Logger): T {
  return spec === 'sandbox' ? connector : wrap(connector, log);
}

/** `receiverStates` is where the sandbox simulators keep receivers whose state changed. */
export async function createProviders(
  choice: ProviderChoice,
  settings: BuiltInConnectorSettings,
  context: ProviderContext,
  receiverStates: ReceiverStates,
  corridors: CorridorTable,
  achClocks: AchClocks,
): Promise<Providers> {
  const receivers = new SandboxReceivers(receiverStates);
  const cardProcessors: BuiltIns<CardProcessor> = {
    'authorize-net': () => createAuthorizeNet(chosen(settings.authorizeNet, 'authorize-net'), { log: context.log.child({ connector: 'authorize-net' }) }),
  };
  const cardProcessor = checkCardProcessor(
    await loadProvider<CardProcessor>(
      choice.cardProcessor,
      context,
      () => new SandboxCardProcessor(context.clock, context.sandboxDelayMs),
      'cardProcessor',
      cardProcessors,
    ),
  );
  const payoutNetworks = new Map<string, PayoutNetwork>();
  const payoutBuiltIns: BuiltIns<PayoutNetwork> = {
    'mtn-momo': () =>
      createMtnMomo(chosen(settings.mtnMomo, 'mtn-momo'), {
        log: context.log.child({ connector: 'mtn-momo' }),
        publicUrl: context.publicUrl,
        environment: context.environment,
      }),
    pawapay: () => createPawaPay(chosen(settings.pawaPay, 'pawapay'), { log: context.log.child({ connector: 'pawapay' }) }),
  };
  // The default and every network a corridor names, each loaded once and behind a breaker of its own.
  for (const name of new Set([choice.payoutNetwork, ...corridors.corridors.map((corridor) => corridor.payoutConnector ?? choice.payoutNetwork)])) {
    const network = await loadProvider<PayoutNetwork>(
      name,
      context,
      () => new SandboxPayoutNetwork(receivers, context.clock, context.sandboxDelayMs, context.publicUrl),
      'payoutNetwork',
      payoutBuiltIns,
    );
    payoutNetworks.set(name, withBreaker(name, network, payoutNetworkWithBreaker, context.log));
  }
  checkCorridorSettings(corridors, payoutNetworks, choice.payoutNetwork);
  const kycBuiltIns: BuiltIns<KycConnector> = {
    veriff: () => createVeriff(chosen(settings.veriff, 'veriff'), { nowMs: () => context.clock.nowMs() }),
  };
  const kyc = await loadProvider<KycConnector>(choice.kyc, context, () => new SandboxKyc(receivers, context.clock, context.publicUrl), 'kyc', kycBuiltIns);
  const fxBuiltIns: BuiltIns<FxProvider> = {
    openexchangerates: () =>
      createOpenExchangeRates(chosen(settings.openExchangeRates, 'openexchangerates'), {
        log: context.log.child({ connector: 'openexchangerates' }),
        clock: context.clock,
        currencies: corridors.corridors.map((corridor) => corridor.currency),
      }),
  };
  const fx = await loadProvider(choice.fx, context, () => new SandboxFx(), 'fx', fxBuiltIns);
  const achBuiltIns: BuiltIns<AchNetwork> = {
    // The same Authorize.net account and settings as the card processor of that name (one set of PAYRAIL_AUTHORIZE_NET_*).
    'authorize-net': () =>
      createAuthorizeNetEcheck(chosen(settings.authorizeNet, 'authorize-net'), { log: context.log.child({ connector: 'authorize-net', slot: 'achNetwork' }) }),
  };
  const achNetwork =
    choice.achNetwork === NO_ACH_NETWORK
      ? null
      : checkAchNetwork(
          await loadProvider<AchNetwork>(
            choice.achNetwork,
            context,
            () =>
              new SandboxAchNetwork({ clock: context.clock, clocks: achClocks, cutoffMinuteOfDay: context.achCutoffMinuteOfDay ?? DEFAULT_ACH_CUTOFF_MINUTE }),
            'achNetwork',
            achBuiltIns,
          ),
        );
  return {
    cardProcessor: withBreaker(choice.cardProcessor, cardProcessor, cardProcessorWithBreaker, context.log),
    payoutNetwork: payoutNetworks.get(choice.payoutNetwork)!,
    defaultPayoutConnector: choice.payoutNetwork,
    payoutNetworks,
    kyc: withBreaker(choice.kyc, kyc, kycWithBreaker, context.log),
    fx: withBreaker(choice.fx, fx, fxWithBreaker, context.log),
    achNetwork: achNetwork === null ? null : withBreaker(choice.achNetwork, achNetwork, achNetworkWithBreaker, context.log),
  };
}

/** A built-in connector's settings; configuration reads them whenever it is chosen, so missing ones are a programmer error. */
function chosen<T>(settings: T | null, name: string): T {
  if (settings === null) throw new Error(`connector ${name} is chosen but its settings were not read (config.ts)`);
  return settings;
}

/** Each corridor's payout_settings as its network reads them; any problem stops the start, every one listed. */
function checkCorridorSettings(corridors: CorridorTable, networks: ReadonlyMap<string, PayoutNetwork>, defaultName: string): void {
  const problems: string[] = [];
  for (const corridor of corridors.corridors) {
    const name = corridor.payoutConnector ?? defaultName;
    for (const problem of networks.get(name)?.corridorProblems?.(corridor) ?? []) {
      problems.push(`corridor ${corridor.service} (payout connector ${name.slice(0, 80)}): ${problem}`);
    }
  }
  if (problems.length > 0) throw new Error(`the corridors file does not suit its payout connectors:\n  - ${problems.join('\n  - ')}`);
}
