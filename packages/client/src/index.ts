// @payrail/client: a zero-dependency, fetch-based client of the Payrail card
// payin and phone money transfer APIs.
export { Payrail, POLL_FIRST_INTERVAL_MS, POLL_INTERVAL_FACTOR, POLL_INTERVAL_MAX_MS, WAIT_TIMEOUT_DEFAULT_MS } from './client.ts';
export { PayrailError, isPayrailError, CLIENT_ERROR_CODES } from './errors.ts';
export { formatCents, parseDollars } from './money.ts';
export type { FetchLike, ResponseLike, Sleep } from './transport.ts';
export type * from './types.ts';
export type * from './wire.ts';
export type * from './lifecycle.ts';
export type * from './stored.ts';
export type * from './surcharge.ts';
export type * from './acceptblue.ts';
export type * from './checks.ts';
export { isCheckPaymentMethod, SEC_CODES } from './checks.ts';
export type { SavedCard, SavedCardChanges, SavedCardExpiry, SavedCardInput } from './saved-cards.ts';
export { tokenSource } from './saved-cards.ts';
export { verifyAcceptBlueWebhook, verifyWebhook, EVENT_TYPES, WEBHOOK_SIGNATURE_ERROR, WEBHOOK_TOLERANCE_DEFAULT_S } from './webhooks.ts';
export type {
  AcceptBlueDelivery,
  AcceptBlueWebhook,
  AcceptBlueWebhookChanges,
  AcceptBlueWebhookInput,
  BatchWire,
  EventFilters,
  EventPage,
  EventResent,
  EventType,
  HeadersInput,
  ListedWebhook,
  PayrailEvent,
  ScheduleEventType,
  ScheduleWire,
  TransactionEventType,
  TransferEventType,
  WebhookEndpoint,
  WebhookEndpointChanges,
  WebhookEndpointInput,
  WebhookEndpointWithSecret,
} from './webhooks.ts';
