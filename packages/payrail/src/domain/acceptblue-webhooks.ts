// accept.blue-shaped webhooks (behaviour section 16; reference A.5 Webhook,
// A.8): which of Payrail's events an accept.blue endpoint receives and under
// which accept.blue event, type and subType, and the rules of accept.blue's
// registration fields. Pure: the flows render the bodies.
import { createHash } from 'node:crypto';
import { endpointUrlProblem, type EventType } from './webhooks.ts';

/** The two formats an endpoint's deliveries come in: Payrail's events (section 11) or accept.blue's envelope. */
export const WEBHOOK_FORMATS = ['payrail', 'acceptblue'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** accept.blue's limits on a Webhook's fields (reference A.5). */
export const ACCEPTBLUE_WEBHOOK_URL_LENGTH_MAX = 255;
export const ACCEPTBLUE_DESCRIPTION_LENGTH_MAX = 255;
/** The length of accept.blue's signing secret (observed: 32 alphanumeric characters). */
export const ACCEPTBLUE_SECRET_LENGTH = 32;
/** The length of an accept.blue delivery's `id`. */
export const ACCEPTBLUE_DELIVERY_ID_LENGTH = 32;

/**
 * The Payrail events an accept.blue endpoint is subscribed to: those with an
 * accept.blue counterpart (acceptBlueKindOf). Kept as the endpoint's event
 * types, so the delivery rows are made by the same statement as every
 * endpoint's (store/events.ts) and events without a counterpart (transfers,
 * schedules, captures, pending charges) make none.
 */
export const ACCEPTBLUE_EVENT_TYPES: readonly EventType[] = [
  'charge.approved',
  'charge.declined',
  'charge.failed',
  'charge.voided',
  'charge.adjusted',
  'charge.expired',
  'charge.originated',
  'charge.settled',
  'charge.returned',
  'refund.succeeded',
  'refund.declined',
  'batch.closed',
];

/** accept.blue's `event`, `type` and `subType` of a delivery (reference A.8). */
export interface AcceptBlueEventKind {
  readonly event: 'transaction' | 'batch';
  readonly type: 'succeeded' | 'updated' | 'declined' | 'error' | 'status' | 'closed';
  /** null for a batch: accept.blue names none. */
  readonly subType: string | null;
}

/** What of the transaction an event is about decides its subType: a credit is not a charge. */
export interface TransactionFacts {
  /** charge, refund, credit, ... (the row's kind). */
  readonly kind: string;
  /** approved, declined, failed, pending (the processor's answer). */
  readonly status: string;
}

/**
 * The accept.blue form of a Payrail event, or null when accept.blue has no
 * such event. `transaction` is the transaction the event is about (null for
 * a batch). A charge that was approved is accept.blue's succeeded charge (or
 * credit); a void its updated void; a refused processing its declined or
 * error (a processor failure); an authorization that expired unused is
 * released as a void is, so it reads as the status change to voided.
 */
export function acceptBlueKindOf(type: EventType, transaction: TransactionFacts | null): AcceptBlueEventKind | null {
  if (type === 'batch.closed') return { event: 'batch', type: 'closed', subType: null };
  if (transaction === null) return null;
  const refused = transaction.status === 'failed' ? 'error' : 'declined';
  const processing = transaction.kind === 'credit' ? 'credit' : transaction.kind === 'refund' ? 'refund' : 'charge';
  switch (type) {
    case 'charge.approved':
    case 'refund.succeeded':
      return { event: 'transaction', type: 'succeeded', subType: processing };
    case 'charge.declined':
    case 'charge.failed':
    case 'refund.declined':
      return { event: 'transaction', type: refused, subType: processing };
    case 'charge.voided':
      return { event: 'transaction', type: 'updated', subType: 'void' };
    case 'charge.adjusted':
      return { event: 'transaction', type: 'updated', subType: 'adjust' };
    case 'charge.expired':
      return { event: 'transaction', type: 'status', subType: 'voided' };
    // A check's life at the bank (behaviour section 17): the status it moved to.
    case 'charge.originated':
      return { event: 'transaction', type: 'status', subType: 'originated' };
    case 'charge.settled':
      return { event: 'transaction', type: 'status', subType: 'settled' };
    case 'charge.returned':
      return { event: 'transaction', type: 'status', subType: 'returned' };
    default:
      return null;
  }
}

/** Why `text` cannot be an accept.blue webhook_url in `environment`, or null when it can: Payrail's URL rules, within accept.blue's tighter length. */
export function acceptBlueUrlProblem(text: string, environment: 'sandbox' | 'production'): string | null {
  if (text.length > ACCEPTBLUE_WEBHOOK_URL_LENGTH_MAX) return `webhook_url must be at most ${ACCEPTBLUE_WEBHOOK_URL_LENGTH_MAX} characters`;
  const problem = endpointUrlProblem(text, environment);
  return problem === null ? null : problem.replace(/^url\b/, 'webhook_url');
}

/** Why `text` cannot be a webhook description, or null when it can. */
export function descriptionProblem(text: string): string | null {
  if (text.length < 1 || text.length > ACCEPTBLUE_DESCRIPTION_LENGTH_MAX) return `description must be 1 to ${ACCEPTBLUE_DESCRIPTION_LENGTH_MAX} characters`;
  return null;
}

/**
 * The `id` of an accept.blue delivery of event `eventPk`: 32 hex characters,
 * the same for every attempt and re-send of the event (a receiver
 * de-duplicates by it), and different for every event.
 */
export function acceptBlueDeliveryId(eventPk: number): string {
  return createHash('sha256').update(`payrail:acceptblue-event:${eventPk}`).digest('hex').slice(0, ACCEPTBLUE_DELIVERY_ID_LENGTH);
}
