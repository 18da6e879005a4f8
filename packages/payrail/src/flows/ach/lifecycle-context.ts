// What every step of the ACH lifecycle works with (lifecycle.ts): the
// service's parts it uses, and one claimed entry with the two clocks it is
// judged on. The network reports times on its own clock: in the sandbox the
// merchant's ACH clock, ahead of the service clock by the offset
// `POST /sandbox/ach/advance` added; elsewhere the service clock. The store's
// next_check_at_ms is on the service clock (the worker's claims compare it
// with that), so every rule is applied on the network's clock and its time
// converted back.
import type { Logger } from 'pino';
import type { CardCipher } from '../../crypto/card-cipher.ts';
import { cardCipherFor } from '../../crypto/card-key.ts';
import type { Clock } from '../../domain/clock.ts';
import type { ProviderKeys } from '../../domain/provider-keys.ts';
import type { AchEntryQuery, AchNetwork } from '../../providers/ach-network.ts';
import type { Service } from '../../service.ts';
import type { ClaimedAchEntry } from '../../store/ach/entries.ts';
import { rescheduleAchEntry } from '../../store/ach/entries.ts';
import type { EventViews } from '../../store/event-outbox.ts';
import { sandboxAchClocks } from '../../store/sandbox-ach-clocks.ts';
import { EVENT_VIEWS } from '../events/emit.ts';
import { chargeReference } from '../common/provider-references.ts';

export interface AchLifecycleDeps {
  readonly db: Service['db'];
  readonly clock: Clock;
  readonly log: Logger;
  /** The configured network (service.providers.achNetwork); null: checks are off. */
  readonly network: AchNetwork | null;
  readonly providerKeys: ProviderKeys;
  /** Opened only when an entry must be submitted again. */
  readonly cipher: () => CardCipher;
  readonly views: EventViews;
  /** How far the merchant's ACH clock is ahead of the service clock (0 outside the sandbox). */
  achClockOffsetMs(merchantId: string): Promise<number>;
}

export function achLifecycleDepsOf(service: Service): AchLifecycleDeps {
  const sandbox = service.config.environment === 'sandbox';
  const clocks = sandboxAchClocks(service.db);
  return {
    db: service.db,
    clock: service.clock,
    log: service.log,
    network: service.providers.achNetwork,
    providerKeys: service.providerKeys,
    cipher: () => cardCipherFor(service.config),
    views: EVENT_VIEWS,
    achClockOffsetMs: (merchantId) => (sandbox ? clocks.offsetMs(merchantId) : Promise.resolve(0)),
  };
}

/** One claimed entry being looked at, with its network and both clocks' now. */
export interface EntryStep {
  readonly deps: AchLifecycleDeps;
  readonly network: AchNetwork;
  readonly entry: ClaimedAchEntry;
  /** Service clock. */
  readonly nowMs: number;
  /** The network's clock: nowMs + the merchant's ACH clock offset. */
  readonly networkNowMs: number;
}

/** A time on the network's clock as the store's next_check_at_ms (service clock); null stays null. */
export function serviceTimeOf(step: EntryStep, networkMs: number | null): number | null {
  return networkMs === null ? null : Math.max(step.nowMs, networkMs - (step.networkNowMs - step.nowMs));
}

/** Leaves the entry as it is, asked about again at `atMs` (service clock; null: never), and releases the claim. */
export function reschedule(step: EntryStep, atMs: number | null): Promise<void> {
  return rescheduleAchEntry(step.deps.db, { chargePk: step.entry.charge_pk, state: step.entry.state, nextCheckAtMs: atMs, nowMs: step.nowMs });
}

/** The wait the entry was last given (what a failed call's backoff doubles). */
export function lastWaitMs(step: EntryStep): number {
  return (step.entry.next_check_at_ms ?? step.nowMs) - step.entry.updated_at_ms;
}

/** The common part of every transition's input. */
export function moveBase(step: EntryStep, nextCheckAtMs: number | null) {
  return { chargePk: step.entry.charge_pk, merchantId: step.entry.merchant_id, nowMs: step.nowMs, views: step.deps.views, nextCheckAtMs };
}

/** How the network is asked about an accepted entry. */
export function entryQuery(step: EntryStep, networkRef: string): Omit<AchEntryQuery, 'signal'> {
  return {
    reference: chargeReference(step.deps.providerKeys, step.entry.charge_pk),
    networkRef,
    merchantId: step.entry.merchant_id,
    direction: step.entry.direction,
    accountLast4: step.entry.account_last4,
  };
}

/** A thrown error in a log line: its name and message only (a connector's error never carries an account number, but a stack is noise). */
export function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 300) : String(error).slice(0, 300);
}
