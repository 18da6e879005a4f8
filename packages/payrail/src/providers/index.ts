// Providers: the card processor, payout network, KYC and FX connectors. Each
// is an interface with a sandbox simulator behind it; a production
// deployment names a module in configuration that exports a factory
// `create(context)` returning the same interface. The flows never know which
// one is plugged in.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Clock } from '../domain/clock.ts';
import type { Db } from '../store/db.ts';
import type { CardProcessor } from './card-processor.ts';
import { SandboxCardProcessor } from './card-processor-sandbox.ts';
import type { FxProvider } from './fx.ts';
import type { KycProvider } from './kyc.ts';
import type { PayoutNetwork } from './payout-network.ts';
import { SandboxFx } from './sandbox/fx.ts';
import { SandboxKyc } from './sandbox/kyc.ts';
import { SandboxPayoutNetwork } from './sandbox/payout-network.ts';

/** What a connector factory receives. */
export interface ProviderContext {
  readonly config: Config;
  readonly db: Db;
  readonly clock: Clock;
  readonly log: Logger;
}

// Each provider adds its field here as it lands.
export interface Providers {
  readonly cardProcessor: CardProcessor;
  readonly payoutNetwork: PayoutNetwork;
  readonly kyc: KycProvider;
  readonly fx: FxProvider;
}

/**
 * Loads a configured connector: `sandbox` returns the simulator, anything
 * else is imported as a module whose `create(context)` builds the connector.
 */
export async function loadProvider<T>(spec: string, context: ProviderContext, simulator: () => T): Promise<T> {
  if (spec === 'sandbox') return simulator();
  const url = spec.startsWith('.') || path.isAbsolute(spec) ? pathToFileURL(path.resolve(spec)).href : spec;
  const module = (await import(url)) as { create?: (context: ProviderContext) => T | Promise<T> };
  if (typeof module.create !== 'function') throw new Error(`provider module ${spec} must export create(context)`);
  return module.create(context);
}

export async function createProviders(context: ProviderContext): Promise<Providers> {
  return {
    cardProcessor: await loadProvider(context.config.providers.cardProcessor, context, () => new SandboxCardProcessor(context.clock, context.config.sandboxDelayMs)),
    payoutNetwork: await loadProvider(context.config.providers.payoutNetwork, context, () => new SandboxPayoutNetwork(context.db, context.clock, context.config.sandboxDelayMs)),
    kyc: await loadProvider(context.config.providers.kyc, context, () => new SandboxKyc(context.db, context.config.publicUrl)),
    fx: await loadProvider(context.config.providers.fx, context, () => new SandboxFx()),
  };
}
