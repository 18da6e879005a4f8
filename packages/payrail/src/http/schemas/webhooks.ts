// Wire schemas of events and webhook endpoints (docs/api-decisions.md
// sections 11 and 14). Event types and URLs are checked by the flows, which
// name what is wrong; the schemas fix the shapes.
import { Type } from 'typebox';
import { ACCEPTBLUE_DESCRIPTION_LENGTH_MAX, ACCEPTBLUE_WEBHOOK_URL_LENGTH_MAX } from '../../domain/acceptblue-webhooks.ts';
import { EVENT_TYPES, type EventType } from '../../domain/webhooks.ts';

const EventTypeSchema = Type.Unsafe<EventType>({ type: 'string', enum: [...EVENT_TYPES], description: 'An event type' });

export const EndpointCreate = Type.Object(
  {
    url: Type.String({ description: 'Where to POST events: https (sandbox also http://localhost)', maxLength: 2048 }),
    events: Type.Optional(Type.Array(Type.String(), { description: 'Event types to receive (default all)', maxItems: 32 })),
  },
  { title: 'WebhookEndpointCreateRequest', additionalProperties: false },
);

export const EndpointChange = Type.Object(
  {
    url: Type.Optional(Type.String({ maxLength: 2048 })),
    events: Type.Optional(Type.Array(Type.String(), { maxItems: 32 })),
    enabled: Type.Optional(Type.Boolean()),
  },
  { title: 'WebhookEndpointUpdateRequest', additionalProperties: false },
);

const endpointFields = {
  id: Type.String({ description: 'Endpoint id (we_...)' }),
  url: Type.String(),
  events: Type.Array(EventTypeSchema),
  enabled: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  disabled_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why Payrail disabled the endpoint (failing for 3 days), or null' }),
};

export const Endpoint = Type.Object(endpointFields, { title: 'WebhookEndpoint', additionalProperties: false });
export const EndpointWithSecret = Type.Object(
  { ...endpointFields, signature: Type.String({ description: 'The signing secret (whsec_...); shown only here' }) },
  { title: 'WebhookEndpointWithSecret', additionalProperties: false },
);

// accept.blue's Webhook (reference A.5; behaviour section 16): the same
// endpoints, registered and read in accept.blue's shape. The secret is shown
// on every read, as accept.blue shows it.
export const AcceptBlueWebhookCreate = Type.Object(
  {
    webhook_url: Type.String({
      maxLength: ACCEPTBLUE_WEBHOOK_URL_LENGTH_MAX,
      description: "Where to POST accept.blue's deliveries: https (the sandbox also takes http, as for url)",
    }),
    description: Type.Optional(Type.String({ minLength: 1, maxLength: ACCEPTBLUE_DESCRIPTION_LENGTH_MAX })),
    active: Type.Optional(Type.Boolean({ description: 'Default true' })),
  },
  { title: 'AcceptBlueWebhookCreateRequest', additionalProperties: false },
);
export const AcceptBlueWebhookChange = Type.Object(
  {
    webhook_url: Type.Optional(Type.String({ maxLength: ACCEPTBLUE_WEBHOOK_URL_LENGTH_MAX })),
    description: Type.Optional(Type.String({ minLength: 1, maxLength: ACCEPTBLUE_DESCRIPTION_LENGTH_MAX })),
    active: Type.Optional(Type.Boolean()),
  },
  { title: 'AcceptBlueWebhookUpdateRequest', additionalProperties: false },
);
export const AcceptBlueWebhook = Type.Object(
  {
    id: Type.Integer({ minimum: 1, description: "The webhook's accept.blue id" }),
    webhook_url: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    active: Type.Boolean(),
    signature: Type.String({ description: 'The shared HMAC-SHA256 secret: X-Signature is the hex HMAC of the raw body keyed by it' }),
  },
  { title: 'AcceptBlueWebhook', additionalProperties: false },
);

/** A Payrail endpoint ({url, events}) or an accept.blue webhook ({webhook_url, ...}). */
export const WebhookCreate = Type.Union([EndpointCreate, AcceptBlueWebhookCreate], { title: 'WebhookCreateRequest' });
export const WebhookChange = Type.Union([EndpointChange, AcceptBlueWebhookChange], { title: 'WebhookUpdateRequest' });
/** Each endpoint in its own shape. */
export const ListedWebhook = Type.Union([Endpoint, AcceptBlueWebhook], { title: 'ListedWebhook' });
export const EndpointList = Type.Array(ListedWebhook, {
  description: "The merchant's endpoints, oldest first, each in the shape it was made in; [] when none",
});
export const EndpointParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
export const EndpointDeleted = Type.Object(
  { id: Type.String(), deleted: Type.Literal(true) },
  { title: 'WebhookEndpointDeleted', additionalProperties: false },
);

export const Event = Type.Object(
  {
    id: Type.String({ description: 'Event id (evt_...): de-duplicate deliveries by it' }),
    type: EventTypeSchema,
    created_at: Type.String({ format: 'date-time' }),
    livemode: Type.Boolean(),
    data: Type.Object({}, { additionalProperties: true, description: 'The object exactly as its GET endpoint showed it' }),
  },
  { title: 'Event', additionalProperties: false },
);
export const EventList = Type.Object(
  {
    data: Type.Array(Event, { description: 'Newest first' }),
    has_more: Type.Boolean({
      description: 'Another page follows in the direction paged: older (starting_after = the last id of this page) or, with ending_before, newer',
    }),
  },
  { title: 'EventList', additionalProperties: false },
);
export const EventParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
export const EventListQuery = Type.Object(
  {
    type: Type.Optional(Type.String({ maxLength: 64, description: 'Only events of this type' })),
    created_from: Type.Optional(Type.String({ maxLength: 64, description: 'Only events created at or after this ISO 8601 timestamp (with a zone)' })),
    created_to: Type.Optional(Type.String({ maxLength: 64, description: 'Only events created at or before this ISO 8601 timestamp (with a zone)' })),
    limit: Type.Optional(Type.String({ maxLength: 8, description: 'Page size, 1 to 100 (default 10)' })),
    starting_after: Type.Optional(
      Type.String({ maxLength: 64, description: 'The id of the last event of the previous page (evt_...): the page starts with the next older one' }),
    ),
    ending_before: Type.Optional(
      Type.String({
        maxLength: 64,
        description: 'The id of the first event of a page (evt_...): the page before it, the newer events nearest to it; not with starting_after',
      }),
    ),
  },
  { additionalProperties: false },
);
/** Lists without parameters still refuse unknown ones, as every other list does. */
export const NoQuery = Type.Object({}, { additionalProperties: false });
export const EventResent = Type.Object(
  { id: Type.String(), deliveries: Type.Integer({ description: 'Deliveries queued (one per enabled endpoint subscribed to the type)' }) },
  { title: 'EventResent', additionalProperties: false },
);
