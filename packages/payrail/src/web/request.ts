// Request and reply helpers shared by the panel's routes: the signed-in user
// on the request, cookie names and attributes, form and query fields with
// length limits, and sending a whole page.
import { parseReferenceNumber } from '../domain/references.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { Service } from '../service.ts';
import type { Html } from './html.ts';
import type { AuditActor } from '../domain/audit.ts';
import type { SessionUser } from '../flows/panel/sessions.ts';
import { notice } from './views/components.ts';
import { page, type PageContext } from './views/layout.ts';

declare module 'fastify' {
  interface FastifyRequest {
    panelUser?: SessionUser;
  }
}

export interface CookieNames {
  readonly session: string;
  readonly login: string;
  readonly secure: boolean;
}

/**
 * Cookies are Secure whenever the panel is reached over HTTPS (production
 * always is); only the plain-HTTP sandbox goes without. Secure cookies take
 * the __Host- prefix, which pins them to this host and path /.
 */
export function cookieNames(config: Config): CookieNames {
  const secure = config.environment === 'production' || config.tlsCertFile !== null || config.trustProxyTls || config.publicUrl.startsWith('https://');
  return secure ? { session: '__Host-payrail_session', login: '__Host-payrail_login', secure } : { session: 'payrail_session', login: 'payrail_login', secure };
}

export function cookieOptions(names: CookieNames) {
  return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: names.secure };
}

/**
 * The route the router matched (its pattern, e.g. /dashboard/team/members/:id/role),
 * or null when none did. Every path check that grants or refuses reads this,
 * never request.url: the router decodes percent-encoding (and may fold
 * slashes or case), so the raw text can name another path than the page
 * that answers (/dashboard/%74eam is the team page).
 */
export function matchedRoute(request: FastifyRequest): string | null {
  return request.routeOptions.url ?? null;
}

export function context(service: Service, request: FastifyRequest): PageContext {
  return { user: request.panelUser ?? null, environment: service.config.environment, path: request.url.split('?')[0]! };
}

export function sendPage(reply: FastifyReply, ctx: PageContext, title: string, body: Html, status = 200): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(page(ctx, title, body).text);
}

/** The user of a route behind the session hook; its absence is a programming error. */
export function userOf(request: FastifyRequest): SessionUser {
  if (request.panelUser === undefined) throw new Error('panel route reached without a session');
  return request.panelUser;
}

/** The signed-in user and the client's address, as the actor of an audit event. */
export function actorOf(request: FastifyRequest): AuditActor {
  const user = userOf(request);
  return { kind: 'user', id: user.userId, label: user.email, address: request.ip };
}

/** The merchant a merchant user's every query is scoped to. */
export function merchantOf(request: FastifyRequest): string {
  const user = userOf(request);
  if (user.merchantId === null) throw new Error('merchant route reached by a user without a merchant');
  return user.merchantId;
}

/** Longest field value the panel accepts; every form field is far shorter. */
const FIELD_LENGTH_MAX = 1000;

function first(value: unknown): string {
  const v = Array.isArray(value) ? value[0] : value;
  return typeof v === 'string' ? v.slice(0, FIELD_LENGTH_MAX) : '';
}

export function formField(request: FastifyRequest, name: string): string {
  const body = request.body;
  if (typeof body !== 'object' || body === null) return '';
  return first((body as Record<string, unknown>)[name]);
}

export function queryField(request: FastifyRequest, name: string): string {
  const query = request.query;
  if (typeof query !== 'object' || query === null) return '';
  return first((query as Record<string, unknown>)[name]).trim();
}

export function pathParam(request: FastifyRequest, name: string): string {
  return first((request.params as Record<string, unknown>)[name]);
}

/** A UTC day from a date input ("2026-01-31"), as milliseconds, or null when absent or invalid. */
export function dayStartMs(text: string): number | null {
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(text)) return null;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(ms) ? null : ms;
}

/** A keyset cursor from the query: a positive integer primary key, or null. */
export function beforeCursor(request: FastifyRequest): number | null {
  const raw = queryField(request, 'before');
  return parseReferenceNumber(raw);
}

/** The page cursors of a list: `before` (older page) wins over `after` (newer page). */
export function pageCursor(request: FastifyRequest): { beforePk: number | null; afterPk: number | null } {
  const beforePk = beforeCursor(request);
  return { beforePk, afterPk: beforePk === null ? parseReferenceNumber(queryField(request, 'after')) : null };
}

/** Fixed messages a redirect after an action can ask for by name; the text never comes from the URL. */
const NOTICES: Record<string, string> = {
  revoked: 'Source revoked. Its credentials no longer work.',
  funded: 'Funds added.',
  overdraft: 'Overdraft limit updated.',
  link_on: 'Payouts of this merchant must now be linked to card payins.',
  link_off: 'Payouts of this merchant no longer need a link.',
  linked: 'Transfer linked to the charge; it proceeds now.',
  cancelled: 'Transfer cancelled; its amount returned to the merchant.',
  captured: 'Charge captured; the amount is credited to your balance.',
  voided: 'Charge voided.',
  refunded: 'Refund made; it is listed under Refunds.',
  action_refused: 'The card processor refused this action; nothing changed. See the refunds below for a declined refund.',
  reauthed: 'Identity confirmed. Repeat the action within 5 minutes.',
  origin_added: 'Origin added. Pages there may now show the card form of this source.',
  origin_removed: 'Origin removed.',
  dialect_changed: "Wire dialect changed. The payin API answers this source's key in it from its next request.",
  dialect_unchanged: 'The source already answers in that wire dialect; nothing changed.',
  totp_removed: 'Two-factor sign-in is off for your account.',
  schedule_paused: 'Schedule paused. It charges nothing until it is resumed.',
  schedule_resumed: 'Schedule resumed. Its next run date is charged when it comes (at once if it has passed).',
  invited: 'Invitation sent. The link in it works once, for 7 days.',
  invitation_revoked: 'Invitation revoked; its link no longer works.',
  member_removed: 'Member removed; their sessions have ended.',
  role_changed: 'Role changed. It applies from their next request.',
  signup_approved: 'Request approved: the merchant is made and its developer gets a one-time link to the credentials.',
  signup_rejected: 'Request rejected; its author is told by mail.',
  webhook_enabled: 'Webhook endpoint enabled.',
  webhook_disabled: 'Webhook endpoint disabled; its pending deliveries will not be sent.',
  webhook_deleted: 'Webhook endpoint deleted.',
  webhook_resent: 'Delivery queued again; it is sent within seconds.',
  surcharge_saved: 'Surcharge saved. It applies to the next charges.',
  difference_resolved: 'Difference resolved; your note is kept with it and in the audit log.',
  reversal_confirmed: "Reversal confirmed: the transfer's amount is back in the merchant's available balance.",
  reversal_rejected: 'Reversal rejected; no money moved, and the transfer no longer shows it.',
};

export function noticeFromQuery(request: FastifyRequest): Html | null {
  const text = NOTICES[queryField(request, 'notice')];
  return text === undefined ? null : notice('success', text);
}
