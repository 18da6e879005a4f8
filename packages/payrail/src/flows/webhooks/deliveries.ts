// An endpoint's recent deliveries as the control panel shows them (status,
// answer code, latency, attempts, next retry), and the panel's re-send of one
// delivery (docs/api-decisions.md section 11). Merchant-scoped.
import type { Clock } from '../../domain/clock.ts';
import { fail } from '../../errors.ts';
import type { Db } from '../../store/db.ts';
import { deliveriesOfEndpoint, resendDelivery as resendDeliveryOf } from '../../store/webhooks/deliveries.ts';
import { eventIdOf } from './events.ts';

export const RECENT_DELIVERIES_SHOWN = 20;

export interface DeliveryView {
  readonly pk: number;
  readonly event_id: string;
  readonly type: string;
  readonly status: 'pending' | 'delivered' | 'failed';
  readonly attempts: number;
  readonly last_status_code: number | null;
  readonly last_error: string | null;
  readonly last_latency_ms: number | null;
  readonly last_attempt_at_ms: number | null;
  /** When a pending delivery is tried next; null once it is delivered or failed. */
  readonly next_attempt_at_ms: number | null;
}

const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

export async function deliveriesOf(deps: { db: Db }, merchantId: string, endpointId: string, limit = RECENT_DELIVERIES_SHOWN): Promise<DeliveryView[]> {
  const rows = await deliveriesOfEndpoint(deps.db, merchantId, endpointId, limit);
  return rows.map((row) => ({
    pk: Number(row.pk),
    event_id: eventIdOf(Number(row.event_pk)),
    type: row.type,
    status: row.status,
    attempts: Number(row.attempts),
    last_status_code: numberOrNull(row.last_status_code),
    last_error: row.last_error,
    last_latency_ms: numberOrNull(row.last_latency_ms),
    last_attempt_at_ms: numberOrNull(row.last_attempt_at_ms),
    next_attempt_at_ms: row.status === 'pending' ? Number(row.next_attempt_at_ms) : null,
  }));
}

/** Queues the delivery's event again for the same endpoint. */
export async function resendDelivery(deps: { db: Db; clock: Clock }, merchantId: string, deliveryPk: number): Promise<void> {
  if (!(await resendDeliveryOf(deps.db, merchantId, deliveryPk, deps.clock.nowMs()))) fail('not_found', `delivery ${deliveryPk} not found`);
}
