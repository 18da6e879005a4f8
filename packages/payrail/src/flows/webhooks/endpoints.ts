// Webhook endpoints (docs/api-decisions.md sections 11 and 14): create, list,
// read, update (url, events, enabled), delete and rotate the signing secret,
// for the API, the panel and the CLI alike. Everything is scoped to the
// merchant: another merchant's endpoint reads as unknown. The secret is
// shown once (creation, rotation) and kept sealed (crypto/webhook-secret.ts).
// accept.blue-shaped webhooks are endpoints too (acceptblue-endpoints.ts has
// their API shape): here they read in Payrail's shape, for the panel and the CLI.
// Every change is audited, with who made it (an API key, a panel user, the
// command line), in the transaction that makes it.
import type { Config } from '../../config.ts';
import type { AuditActor, AuditEvent } from '../../domain/audit.ts';
import { audited } from '../operations/audit.ts';
import { webhookSecretCipherFor } from '../../crypto/webhook-secret.ts';
import type { Clock } from '../../domain/clock.ts';
import { randomBase62 } from '../../domain/ids.ts';
import { Secret } from '../../domain/secret.ts';
import {
  ENDPOINTS_PER_MERCHANT_MAX,
  endpointUrlProblem,
  type EventType,
  eventTypesOf,
  eventTypesText,
  EVENT_TYPES,
  isEventType,
} from '../../domain/webhooks.ts';
import { fail } from '../../errors.ts';
import { hostAllowed, webhookAddressRule } from '../../providers/webhook-address-rule.ts';
import type { Db } from '../../store/db.ts';
import type { EndpointRow } from '../../store/webhook-endpoints.ts';
import { newAcceptBlueSecret } from './acceptblue-secret.ts';
import {
  changeEndpoint as storeEndpointChange,
  createEndpoint as storeEndpoint,
  endpointOf as storedEndpointOf,
  endpointsOf,
  removeEndpoint as deleteEndpointOf,
  replaceEndpointSecret,
} from '../../store/webhooks/endpoints.ts';

export interface EndpointDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly config: Pick<Config, 'environment' | 'cardKeyBase64' | 'dataDir' | 'host' | 'trustedProxies' | 'publicUrl' | 'webhookAllowedAddresses'>;
}

export interface EndpointView {
  readonly id: string;
  readonly url: string;
  readonly events: EventType[];
  readonly enabled: boolean;
  readonly created_at: string;
  /** Why Payrail disabled the endpoint itself (every delivery failed for 3 days), or null. */
  readonly disabled_reason: string | null;
}

/** Creation and rotation answers: the only places the secret is shown. */
export type EndpointWithSecret = EndpointView & { readonly signature: string };

const ENDPOINT_ID_PATTERN = /^we_[0-9A-Za-z]{16}$/;
export const newEndpointId = (): string => `we_${randomBase62(16)}`;
const newSecret = (): Secret<string> => new Secret(`whsec_${randomBase62(32)}`);

export function renderEndpoint(row: EndpointRow): EndpointView {
  return {
    id: row.id,
    url: row.url,
    events: eventTypesOf(row.event_types),
    enabled: Number(row.enabled) === 1,
    created_at: new Date(Number(row.created_at_ms)).toISOString(),
    disabled_reason: row.disabled_reason,
  };
}

function checkedUrl(deps: EndpointDeps, url: unknown): string {
  if (typeof url !== 'string') fail('invalid_request', 'url must be a string');
  const problem = endpointUrlProblem(url, deps.config.environment);
  if (problem !== null) fail('invalid_request', problem);
  checkAddress(deps, url, 'url');
  return url;
}

/**
 * A URL names no address the delivery rule refuses (`url` already passed the
 * URL rules): no loopback, private, link-local or special-purpose address,
 * save the sandbox's exceptions (providers/webhook-address-rule.ts).
 */
export function checkAddress(deps: Pick<EndpointDeps, 'config'>, url: string, field: string): void {
  // A name is checked on the address it resolves to at every delivery (providers/webhook-sender.ts).
  const rule = webhookAddressRule(deps.config);
  if (!hostAllowed(rule, new URL(url).hostname)) fail('invalid_request', `${field} ${rule.refusal}`);
}

function checkedTypes(events: unknown): EventType[] | null {
  if (events === undefined || events === null) return null;
  if (!Array.isArray(events) || events.length > EVENT_TYPES.length * 2) fail('invalid_request', 'events must be a list of event types');
  for (const type of events) {
    if (typeof type !== 'string' || !isEventType(type)) fail('invalid_request', `events: unknown event type; use ${EVENT_TYPES.join(', ')}`);
  }
  return events as EventType[];
}

function checkedId(id: string): string {
  if (!ENDPOINT_ID_PATTERN.test(id)) fail('not_found', `webhook endpoint ${id.slice(0, 40)} not found`);
  return id;
}

/** The event of a change to an endpoint; a URL is described by its host only (its path or query may hold a receiver's token). */
export function endpointEvent(action: AuditEvent['action'], merchantId: string, id: string | null, url?: string): AuditEvent {
  return { action, target: id, merchantId, detail: url === undefined ? null : `host ${new URL(url).host}` };
}

export async function createEndpoint(
  deps: EndpointDeps,
  merchantId: string,
  input: { url: unknown; events?: unknown },
  by: AuditActor,
): Promise<EndpointWithSecret> {
  const id = newEndpointId();
  return audited(deps, by, endpointEvent('webhook.endpoint_create', merchantId, id), async (audit) => {
    const url = checkedUrl(deps, input.url);
    const types = checkedTypes(input.events);
    const secret = newSecret();
    const secretEnc = webhookSecretCipherFor(deps.config).seal(secret, id);
    const note = { ...audit, event: endpointEvent('webhook.endpoint_create', merchantId, id, url) };
    const row = await storeEndpoint(
      deps.db,
      { id, merchantId, url, eventTypes: eventTypesText(types), secretEnc, nowMs: deps.clock.nowMs() },
      ENDPOINTS_PER_MERCHANT_MAX,
      note,
    );
    if (row === 'too_many') fail('invalid_request', `a merchant can have at most ${ENDPOINTS_PER_MERCHANT_MAX} webhook endpoints`);
    if (row === undefined) throw new Error(`webhook endpoint ${id} vanished`);
    return { ...renderEndpoint(row), signature: secret.reveal() };
  });
}

/** Every endpoint of the merchant, accept.blue webhooks included, in Payrail's endpoint shape (the panel and the CLI). */
export async function endpointList(deps: Pick<EndpointDeps, 'db'>, merchantId: string): Promise<EndpointView[]> {
  return (await endpointsOf(deps.db, merchantId)).map(renderEndpoint);
}

/** What the panel adds for an accept.blue webhook: its accept.blue id and description. */
export interface AcceptBlueFacts {
  readonly id: number;
  readonly description: string | null;
}

/** endpointList with, for each accept.blue webhook, its accept.blue facts (null for Payrail's own endpoints). */
export async function endpointListWithFormats(
  deps: Pick<EndpointDeps, 'db'>,
  merchantId: string,
): Promise<Array<{ endpoint: EndpointView; acceptBlue: AcceptBlueFacts | null }>> {
  return (await endpointsOf(deps.db, merchantId)).map((row) => ({
    endpoint: renderEndpoint(row),
    acceptBlue: row.format === 'acceptblue' && row.number !== null ? { id: Number(row.number), description: row.description } : null,
  }));
}

export async function endpointOf(deps: Pick<EndpointDeps, 'db'>, merchantId: string, id: string): Promise<EndpointView> {
  const row = await storedEndpointOf(deps.db, merchantId, checkedId(id));
  if (row === undefined) fail('not_found', `webhook endpoint ${id} not found`);
  return renderEndpoint(row);
}

export async function changeEndpoint(
  deps: EndpointDeps,
  merchantId: string,
  id: string,
  input: { url?: unknown; events?: unknown; enabled?: unknown },
  by: AuditActor,
): Promise<EndpointView> {
  return audited(deps, by, endpointEvent('webhook.endpoint_update', merchantId, id.slice(0, 40)), (audit) =>
    changeEndpointAudited(deps, merchantId, id, input, audit),
  );
}

async function changeEndpointAudited(
  deps: EndpointDeps,
  merchantId: string,
  id: string,
  input: { url?: unknown; events?: unknown; enabled?: unknown },
  audit: { actor: AuditActor; event: AuditEvent; atMs: number },
): Promise<EndpointView> {
  checkedId(id);
  if (input.url !== undefined || input.events !== undefined) {
    // An accept.blue endpoint receives accept.blue's events, and its URL is changed by its accept.blue id (the duplicate rule).
    const current = await storedEndpointOf(deps.db, merchantId, id);
    if (current?.format === 'acceptblue')
      fail('invalid_request', `webhook endpoint ${id} is an accept.blue webhook: change its webhook_url at /api/v2/webhooks/${current.number}`);
  }
  const change: { url?: string; eventTypes?: string; enabled?: boolean } = {};
  if (input.url !== undefined) change.url = checkedUrl(deps, input.url);
  if (input.events !== undefined) change.eventTypes = eventTypesText(checkedTypes(input.events));
  if (input.enabled !== undefined) {
    if (typeof input.enabled !== 'boolean') fail('invalid_request', 'enabled must be true or false');
    change.enabled = input.enabled;
  }
  const facts = [
    change.url === undefined ? null : `host ${new URL(change.url).host}`,
    change.eventTypes === undefined ? null : 'events',
    change.enabled === undefined ? null : change.enabled ? 'enabled' : 'disabled',
  ];
  const note = { ...audit, event: { ...audit.event, detail: facts.filter((f) => f !== null).join(', ') || null } };
  const row = await storeEndpointChange(deps.db, merchantId, id, change, deps.clock.nowMs(), note);
  if (row === undefined) fail('not_found', `webhook endpoint ${id} not found`);
  return renderEndpoint(row);
}

export async function removeEndpoint(
  deps: Pick<EndpointDeps, 'db' | 'clock'>,
  merchantId: string,
  id: string,
  by: AuditActor,
): Promise<{ id: string; deleted: true }> {
  return audited(deps, by, endpointEvent('webhook.endpoint_delete', merchantId, id.slice(0, 40)), async (audit) => {
    checkedId(id);
    if (!(await deleteEndpointOf(deps.db, merchantId, id, audit))) fail('not_found', `webhook endpoint ${id} not found`);
    return { id, deleted: true as const };
  });
}

/** A new secret replaces the old one at once; deliveries signed from now on use it. */
export async function rotateEndpointSecret(deps: EndpointDeps, merchantId: string, id: string, by: AuditActor): Promise<EndpointWithSecret> {
  return audited(deps, by, endpointEvent('webhook.secret_rotate', merchantId, id.slice(0, 40)), async (audit) => {
    const current = await storedEndpointOf(deps.db, merchantId, checkedId(id));
    if (current === undefined) fail('not_found', `webhook endpoint ${id} not found`);
    // An accept.blue endpoint's secret keeps accept.blue's form (32 alphanumeric characters, no prefix).
    const secret = current.format === 'acceptblue' ? newAcceptBlueSecret() : newSecret();
    const secretEnc = webhookSecretCipherFor(deps.config).seal(secret, id);
    const row = await replaceEndpointSecret(deps.db, merchantId, id, secretEnc, deps.clock.nowMs(), audit);
    if (row === undefined) fail('not_found', `webhook endpoint ${id} not found`);
    return { ...renderEndpoint(row), signature: secret.reveal() };
  });
}
