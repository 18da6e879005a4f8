// The webhook delivery commands and queries the flows submit
// (flows/webhooks/deliver.ts and deliveries.ts decide; the statements are
// store/webhook-deliveries.ts and store/webhook-endpoints.ts).
import { command, Refusal } from '../command.ts';
import type { Db } from '../db.ts';
import {
  abandonDelivery,
  type AttemptResult,
  type DeliveryRow,
  hasDueDeliveries,
  pauseEndpoints,
  queueDeliveryResend,
  recentDeliveries,
  recordAttempt,
  type SendableRow,
  sendableOf,
} from '../webhook-deliveries.ts';
import { disableFailingEndpoint, markEndpointFailing, markEndpointHealthy } from '../webhook-endpoints.ts';

export function deliveriesDue(db: Db, nowMs: number): Promise<boolean> {
  return db.read((tx) => hasDueDeliveries(tx, nowMs));
}

export function pauseSlowEndpoints(db: Db, pauses: ReadonlyArray<{ endpointId: string; dueAtMs: number }>): Promise<void> {
  return db.write((tx) => pauseEndpoints(tx, pauses));
}

export function sendableDelivery(db: Db, delivery: Pick<DeliveryRow, 'event_pk' | 'endpoint_id'>): Promise<SendableRow | undefined> {
  return db.read((tx) => sendableOf(tx, delivery));
}

export function abandonClaim(db: Db, claim: { pk: number; attempts: number }, reason: string, nowMs: number): Promise<void> {
  return db.write((tx) => abandonDelivery(tx, claim, reason, nowMs));
}

export interface DeliveryAttempt {
  readonly claim: { pk: number; attempts: number; endpointId: string };
  readonly outcome: 'delivered' | 'retry' | 'failed';
  readonly result: AttemptResult;
  /** When a retry is due; null when the attempt was the last (delivered or failed). */
  readonly retryAtMs: number | null;
  readonly nowMs: number;
  /** How long an endpoint is paused after this many failures in a row. */
  readonly pauseFor: (failures: number) => number;
  /** A failing streak at least this long disables the endpoint. */
  readonly disableAfterMs: number;
  readonly disabledReason: string;
}

/**
 * Records one attempt with its endpoint's health: 'disabled' when the attempt
 * made a failing streak long enough to disable the endpoint, 'recorded'
 * otherwise, 'lapsed' when the claim had lapsed (someone else claimed the
 * delivery since): then nothing changes, the endpoint's row included.
 */
export function recordDeliveryAttempt(db: Db, attempt: DeliveryAttempt): Promise<'recorded' | 'disabled' | 'lapsed'> {
  const { claim, outcome, nowMs, retryAtMs } = attempt;
  // The endpoint row first, then the delivery's: every path takes them in
  // that order, so two workers on PostgreSQL cannot deadlock over them.
  return command(db, async (tx) => {
    let disable = false;
    if (outcome === 'delivered') await markEndpointHealthy(tx, claim.endpointId);
    else {
      const failingSinceMs = await markEndpointFailing(tx, claim.endpointId, { nowMs, retryAtMs }, attempt.pauseFor);
      disable = nowMs - failingSinceMs >= attempt.disableAfterMs;
    }
    if (!(await recordAttempt(tx, claim, outcome, attempt.result, retryAtMs ?? nowMs))) throw new Refusal('lapsed' as const);
    return disable && (await disableFailingEndpoint(tx, claim.endpointId, attempt.disabledReason, nowMs)) ? 'disabled' : 'recorded';
  });
}

export function deliveriesOfEndpoint(db: Db, merchantId: string, endpointId: string, limit: number): Promise<Array<DeliveryRow & { type: string }>> {
  return db.read((tx) => recentDeliveries(tx, merchantId, endpointId, limit));
}

/** False when the merchant has no such delivery. */
export function resendDelivery(db: Db, merchantId: string, deliveryPk: number, nowMs: number): Promise<boolean> {
  return db.write((tx) => queueDeliveryResend(tx, merchantId, deliveryPk, nowMs));
}
