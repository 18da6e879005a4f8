// accept.blue-shaped webhook endpoints (behaviour section 16, reference A.5
// Webhook): registered at POST /api/v2/webhooks with accept.blue's
// {webhook_url, description, active} and read back as accept.blue's Webhook
// {id, webhook_url, description, active, signature} on creation and on every
// read, because accept.blue's integrations take the secret from a read (the
// Vendure plugin lists the webhooks and takes `signature` of the one with its
// URL). The secret is sealed at rest like every endpoint's
// (crypto/webhook-secret.ts) and opened only to answer or to sign. Such an
// endpoint is a row of webhook_endpoints like Payrail's own (deliveries,
// retries and disabling are shared); its deliveries are accept.blue's
// envelope (flows/webhooks/acceptblue-delivery.ts).
import { webhookSecretCipherFor } from '../../crypto/webhook-secret.ts';
import { ACCEPTBLUE_EVENT_TYPES, acceptBlueUrlProblem, descriptionProblem } from '../../domain/acceptblue-webhooks.ts';
import { ENDPOINTS_PER_MERCHANT_MAX, eventTypesText } from '../../domain/webhooks.ts';
import { fail } from '../../errors.ts';
import type { EndpointRow } from '../../store/webhook-endpoints.ts';
import {
  acceptBlueEndpointOf,
  changeAcceptBlueEndpoint,
  createAcceptBlueEndpoint,
  endpointsOf,
  removeAcceptBlueEndpoint,
} from '../../store/webhooks/endpoints.ts';
import { newAcceptBlueSecret } from './acceptblue-secret.ts';
import type { AuditActor } from '../../domain/audit.ts';
import { audited } from '../operations/audit.ts';
import { changeEndpoint, checkAddress, type EndpointDeps, endpointEvent, type EndpointView, newEndpointId, renderEndpoint } from './endpoints.ts';

/** accept.blue's Webhook object. */
export interface AcceptBlueWebhookView {
  readonly id: number;
  readonly webhook_url: string;
  readonly description: string | null;
  readonly active: boolean;
  /** The shared HMAC secret the deliveries are signed with. */
  readonly signature: string;
}

/** accept.blue's NewWebhook and BaseWebhook (a change sends any of them). */
export interface AcceptBlueWebhookInput {
  readonly webhook_url?: unknown;
  readonly description?: unknown;
  readonly active?: unknown;
}

/** accept.blue ids are digits; Payrail's own endpoint ids start with we_. */
const NUMBER_PATTERN = /^[1-9][0-9]{0,14}$/;

/** The accept.blue id a path segment names, or null when it names none (then it may be a Payrail endpoint id). */
export function acceptBlueNumberOf(id: string): number | null {
  return NUMBER_PATTERN.test(id) ? Number(id) : null;
}

export function renderAcceptBlueWebhook(deps: Pick<EndpointDeps, 'config'>, row: EndpointRow): AcceptBlueWebhookView {
  if (row.number === null || row.acceptblue_secret_enc === null) throw new Error(`webhook endpoint ${row.id} is not an accept.blue endpoint`);
  const secret = webhookSecretCipherFor(deps.config).open(Buffer.from(row.acceptblue_secret_enc), row.id);
  return {
    id: Number(row.number),
    webhook_url: row.url,
    description: row.description,
    active: Number(row.enabled) === 1,
    signature: secret.reveal(),
  };
}

function checkedUrl(deps: Pick<EndpointDeps, 'config'>, url: unknown): string {
  if (typeof url !== 'string') fail('invalid_request', 'webhook_url must be a string');
  const problem = acceptBlueUrlProblem(url, deps.config.environment);
  if (problem !== null) fail('invalid_request', problem);
  checkAddress(deps, url, 'webhook_url');
  return url;
}

function checkedDescription(description: unknown): string {
  if (typeof description !== 'string') fail('invalid_request', 'description must be a string');
  const problem = descriptionProblem(description);
  if (problem !== null) fail('invalid_request', problem);
  return description;
}

function checkedActive(active: unknown): boolean {
  if (typeof active !== 'boolean') fail('invalid_request', 'active must be true or false');
  return active;
}

const duplicate = (url: string): never => fail('duplicate_webhook', `a webhook with webhook_url ${url} is already registered`);

/** POST /api/v2/webhooks with a webhook_url: 409 (duplicate_webhook) when the merchant registered this URL already. */
export async function createAcceptBlueWebhook(
  deps: EndpointDeps,
  merchantId: string,
  input: AcceptBlueWebhookInput,
  by: AuditActor,
): Promise<AcceptBlueWebhookView> {
  const id = newEndpointId();
  return audited(deps, by, endpointEvent('webhook.endpoint_create', merchantId, id), async (audit) => {
    const url = checkedUrl(deps, input.webhook_url);
    const description = input.description === undefined ? null : checkedDescription(input.description);
    const enabled = input.active === undefined ? true : checkedActive(input.active);
    const secretEnc = webhookSecretCipherFor(deps.config).seal(newAcceptBlueSecret(), id);
    const note = { ...audit, event: endpointEvent('webhook.endpoint_create', merchantId, id, url) };
    const row = await createAcceptBlueEndpoint(
      deps.db,
      { id, merchantId, url, eventTypes: eventTypesText(ACCEPTBLUE_EVENT_TYPES), secretEnc, nowMs: deps.clock.nowMs(), description, enabled },
      ENDPOINTS_PER_MERCHANT_MAX,
      note,
    );
    if (row === 'too_many') fail('invalid_request', `a merchant can have at most ${ENDPOINTS_PER_MERCHANT_MAX} webhook endpoints`);
    if (row === 'duplicate') return duplicate(url);
    return renderAcceptBlueWebhook(deps, row);
  });
}

/** One endpoint as the API's list shows it: accept.blue's Webhook for accept.blue endpoints, Payrail's endpoint otherwise. */
export type ListedWebhook = EndpointView | AcceptBlueWebhookView;

/** GET /api/v2/webhooks: every endpoint of the merchant, oldest first, each in its own shape; [] when none. */
export async function webhookList(deps: Pick<EndpointDeps, 'db' | 'config'>, merchantId: string): Promise<ListedWebhook[]> {
  const rows = await endpointsOf(deps.db, merchantId);
  return rows.map((row) => (row.format === 'acceptblue' ? renderAcceptBlueWebhook(deps, row) : renderEndpoint(row)));
}

export async function acceptBlueWebhookOf(deps: Pick<EndpointDeps, 'db' | 'config'>, merchantId: string, number: number): Promise<AcceptBlueWebhookView> {
  const row = await acceptBlueEndpointOf(deps.db, merchantId, number);
  if (row === undefined) fail('not_found', `webhook ${number} not found`);
  return renderAcceptBlueWebhook(deps, row);
}

/** PATCH /api/v2/webhooks/:id of an accept.blue endpoint: any of webhook_url, description, active. */
export async function changeAcceptBlueWebhook(
  deps: EndpointDeps,
  merchantId: string,
  number: number,
  input: AcceptBlueWebhookInput,
  by: AuditActor,
): Promise<AcceptBlueWebhookView> {
  return audited(deps, by, endpointEvent('webhook.endpoint_update', merchantId, String(number)), async (audit) => {
    const change: { url?: string; description?: string; enabled?: boolean } = {};
    if (input.webhook_url !== undefined) change.url = checkedUrl(deps, input.webhook_url);
    if (input.description !== undefined) change.description = checkedDescription(input.description);
    if (input.active !== undefined) change.enabled = checkedActive(input.active);
    const detail = [
      change.url === undefined ? null : `host ${new URL(change.url).host}`,
      change.enabled === undefined ? null : change.enabled ? 'active' : 'inactive',
    ];
    const note = { ...audit, event: { ...audit.event, detail: detail.filter((d) => d !== null).join(', ') || null } };
    const row = await changeAcceptBlueEndpoint(deps.db, merchantId, number, change, deps.clock.nowMs(), note);
    if (row === undefined) fail('not_found', `webhook ${number} not found`);
    if (row === 'duplicate') return duplicate(change.url ?? '');
    return renderAcceptBlueWebhook(deps, row);
  });
}

/** DELETE /api/v2/webhooks/:id of an accept.blue endpoint (answered 204, as accept.blue does). */
export async function removeAcceptBlueWebhook(deps: Pick<EndpointDeps, 'db' | 'clock'>, merchantId: string, number: number, by: AuditActor): Promise<void> {
  await audited(deps, by, endpointEvent('webhook.endpoint_delete', merchantId, String(number)), async (audit) => {
    if (!(await removeAcceptBlueEndpoint(deps.db, merchantId, number, audit))) fail('not_found', `webhook ${number} not found`);
  });
}

/** A PATCH body: Payrail's fields or accept.blue's (the schema allows one set or the other). */
export interface WebhookChangeInput extends AcceptBlueWebhookInput {
  readonly url?: unknown;
  readonly events?: unknown;
  readonly enabled?: unknown;
}

/** PATCH /api/v2/webhooks/:id: an integer id is an accept.blue webhook and takes accept.blue's fields; we_... takes Payrail's. */
export async function changeWebhook(deps: EndpointDeps, merchantId: string, id: string, input: WebhookChangeInput, by: AuditActor): Promise<ListedWebhook> {
  const number = acceptBlueNumberOf(id);
  const { url, events, enabled, ...acceptBlue } = input;
  if (number !== null) {
    if (url !== undefined || events !== undefined || enabled !== undefined)
      fail('invalid_request', 'an accept.blue webhook takes webhook_url, description and active');
    return changeAcceptBlueWebhook(deps, merchantId, number, acceptBlue, by);
  }
  if (Object.values(acceptBlue).some((value) => value !== undefined)) fail('invalid_request', 'a webhook endpoint (we_...) takes url, events and enabled');
  return changeEndpoint(deps, merchantId, id, { url, events, enabled }, by);
}
