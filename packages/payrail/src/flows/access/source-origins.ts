// The page origins a payin source's hosted card form may be shown on
// (domain/page-origin.ts has the rule), managed from the panel's credentials
// page and `payrail source origins`, and the check the form's route makes:
// the tokenization token must be a real, unrevoked one (checked against the
// store like any API credential, not only by its look) and its source must
// allow the page's origin.
import type { AuditActor } from '../../domain/audit.ts';
import type { Environment } from '../../domain/credentials.ts';
import { ORIGINS_PER_SOURCE_MAX, originAllowed, parsePageOrigin } from '../../domain/page-origin.ts';
import { fail, isApiError } from '../../errors.ts';
import type { Service } from '../../service.ts';
import type { Db } from '../../store/db.ts';
import * as origins from '../../store/access/origins.ts';
import { audited, SYSTEM_ACTOR } from '../operations/audit.ts';
import type { Clock } from '../../domain/clock.ts';
import type { Principal } from './authenticate.ts';

export interface OriginDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly environment: Environment;
}

/** What the hosted form's origin rules get from the service. */
export function originDepsOf(service: Pick<Service, 'db' | 'clock' | 'config'>): OriginDeps {
  return { db: service.db, clock: service.clock, environment: service.config.environment };
}

/** Sources a merchant may have listed on its credentials page, times the origins of each. */
const MERCHANT_ORIGINS_LISTED_MAX = 100 * ORIGINS_PER_SOURCE_MAX;

function originOf(deps: OriginDeps, text: string): string {
  const origin = parsePageOrigin(text.trim(), deps.environment === 'production');
  if (origin === null) {
    fail(
      'invalid_request',
      deps.environment === 'production'
        ? 'origin must be a bare https origin such as https://shop.example (no path)'
        : 'origin must be a bare http(s) origin such as https://shop.example (no path)',
    );
  }
  return origin;
}

export async function sourceOrigins(deps: Pick<OriginDeps, 'db'>, input: { merchantId: string; sourceId: string }): Promise<string[]> {
  const listed = await origins.originsOfSource(deps.db, { ...input, limit: ORIGINS_PER_SOURCE_MAX });
  if (listed === undefined) fail('not_found', `source ${input.sourceId} not found`);
  return listed;
}

/** The origins of every source of a merchant, by source id. */
export async function originsBySource(deps: Pick<OriginDeps, 'db'>, merchantId: string): Promise<Map<string, string[]>> {
  const rows = await origins.originsOfMerchant(deps.db, merchantId, MERCHANT_ORIGINS_LISTED_MAX);
  const out = new Map<string, string[]>();
  for (const row of rows) out.set(row.source_id, [...(out.get(row.source_id) ?? []), row.origin]);
  return out;
}

export async function addOrigin(
  deps: OriginDeps,
  input: { merchantId: string; sourceId: string; origin: string },
  by: AuditActor = SYSTEM_ACTOR,
): Promise<string[]> {
  const origin = originOf(deps, input.origin);
  const event = { action: 'source.origin_add', target: input.sourceId, merchantId: input.merchantId, detail: origin } as const;
  return audited(deps, by, event, async (audit) => {
    const nowMs = deps.clock.nowMs();
    const added = await origins.addOrigin(deps.db, {
      merchantId: input.merchantId,
      sourceId: input.sourceId,
      origin,
      nowMs,
      originsMax: ORIGINS_PER_SOURCE_MAX,
      audit,
    });
    if (added.kind === 'not_found') fail('not_found', `source ${input.sourceId} not found`);
    if (added.kind === 'revoked') fail('invalid_request', `source ${input.sourceId} is revoked`);
    if (added.kind === 'full') fail('invalid_request', `a source may list at most ${ORIGINS_PER_SOURCE_MAX} origins; remove one first`);
    return added.origins;
  });
}

export async function removeOrigin(
  deps: OriginDeps,
  input: { merchantId: string; sourceId: string; origin: string },
  by: AuditActor = SYSTEM_ACTOR,
): Promise<string[]> {
  const origin = input.origin.trim();
  const event = { action: 'source.origin_remove', target: input.sourceId, merchantId: input.merchantId, detail: origin } as const;
  return audited(deps, by, event, async (audit) => {
    const listed = await origins.removeOrigin(deps.db, {
      merchantId: input.merchantId,
      sourceId: input.sourceId,
      origin,
      originsMax: ORIGINS_PER_SOURCE_MAX,
      audit,
    });
    if (listed === undefined) fail('not_found', `source ${input.sourceId} does not list ${origin}`);
    return listed;
  });
}

/** The form may be served into `origin`, or not: 400 for a malformed request or a bad token, 403 for an origin its source does not allow. */
export type FormAccess = { readonly ok: true; readonly origin: string } | { readonly ok: false; readonly status: 400 | 403; readonly problem: string };

/**
 * Whether the hosted card form may be served into a page of this origin:
 * `verifyToken` (the HTTP layer's tokenization-token authentication, which
 * looks the token up in the store and refuses unknown, revoked, wrong-kind
 * and other-environment ones) must pass, and the token's source must allow
 * the origin.
 */
export async function hostedFormAccess(deps: OriginDeps, input: { origin: unknown; verifyToken: () => Promise<Principal> }): Promise<FormAccess> {
  const origin = parsePageOrigin(input.origin, deps.environment === 'production');
  if (origin === null) return { ok: false, status: 400, problem: 'origin must be the origin of the page that shows the form' };
  let principal: Principal;
  try {
    principal = await input.verifyToken();
  } catch (error) {
    if (!isApiError(error)) throw error;
    return { ok: false, status: 400, problem: `token must be a valid ${deps.environment} tokenization token` };
  }
  const { merchantId, sourceId } = principal;
  if (principal.kind !== 'tokenization_token' || sourceId === null)
    return { ok: false, status: 400, problem: `token must be a valid ${deps.environment} tokenization token` };
  const allowed = await origins.allowedOrigins(deps.db, merchantId, sourceId, ORIGINS_PER_SOURCE_MAX);
  if (!originAllowed(origin, allowed, deps.environment)) {
    return {
      ok: false,
      status: 403,
      problem: `this source does not allow pages at ${origin}; add the origin to the source (panel Credentials page or payrail source origins)`,
    };
  }
  return { ok: true, origin };
}
