// A receiver's KYC with a provider that verifies in sessions (Veriff,
// behaviour.md section 18). The provider decides who is verified; Payrail
// keeps its decision per receiver (store/receivers/verifications.ts) and
// applies its own limits: an approved receiver gets the verified limit and
// kyc_url "", anyone else the unverified limit and the link of an open
// session, started here when the receiver has none usable (none yet, expired,
// declined, resubmission requested, abandoned). The store decides which
// request starts it, so a receiver gets at most one session at a time however
// many requests ask at once; within one process those requests share the one
// start. The provider is given the row's reference (a provider UUID of kind
// `receiver`), never the phone number.
import crypto from 'node:crypto';
import type { KycLimits } from '../../config/veriff.ts';
import type { Clock } from '../../domain/clock.ts';
import type { ProviderKeys } from '../../domain/provider-keys.ts';
import { fail } from '../../errors.ts';
import { LOOKUP_TIMEOUT_MS } from '../../providers/deadline.ts';
import type { Providers } from '../../providers/index.ts';
import type { KycSession, KycStatus, SessionKycProvider } from '../../providers/kyc.ts';
import type { Service } from '../../service.ts';
import type { Db } from '../../store/db.ts';
import {
  claimSessionStart,
  ensureVerification,
  needsNewSession,
  readVerificationByPhone,
  type ReceiverVerification,
  recordStartedSession,
  releaseSessionStart,
} from '../../store/receivers/verifications.ts';
import { startKycSession } from './lookups.ts';

export interface KycDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly providers: Providers;
  readonly providerKeys: ProviderKeys;
  readonly kycLimits: KycLimits;
}

export function kycDepsOf(service: Service): KycDeps {
  return { db: service.db, clock: service.clock, providers: service.providers, providerKeys: service.providerKeys, kycLimits: service.config.kycLimits };
}

/**
 * How long a start lease holds: the start's own deadline and the write after
 * it, with room to spare. A request that died holding it delays the next
 * start by at most this.
 */
const START_LEASE_MS = 2 * LOOKUP_TIMEOUT_MS + 5_000;

/** How often a request that lost the race looks again for the session another process is starting, and for how long (a request waits no longer than a look-up). */
const WAIT_STEP_MS = 100;
const WAIT_STEPS_MAX = Math.ceil(LOOKUP_TIMEOUT_MS / WAIT_STEP_MS);

/** Starts in flight in this process, by phone: concurrent requests for one receiver share one. */
const startsInFlight = new Map<string, Promise<string>>();

function statusOf(deps: KycDeps, row: ReceiverVerification | null, url: string): KycStatus {
  if (row?.decision === 'approved') return { verified: true, moneyLimitCents: deps.kycLimits.verifiedCents, kycUrl: '' };
  return { verified: false, moneyLimitCents: deps.kycLimits.unverifiedCents, kycUrl: url };
}

/** What Payrail kept of the receiver, without asking the provider or starting anything (check and execute). */
export async function keptKycStatus(deps: KycDeps, phoneE164: string): Promise<KycStatus> {
  const row = await readVerificationByPhone(deps.db, phoneE164);
  const nowMs = deps.clock.nowMs();
  const usable = row !== null && !needsNewSession(row, nowMs) ? (row.sessionUrl ?? '') : '';
  return statusOf(deps, row, usable);
}

/** The receiver's status for GET /api/kyc: starts a session when the receiver has none usable. The caller has checked the receiver is on the network. */
export async function sessionKycStatus(deps: KycDeps, kyc: SessionKycProvider, phoneE164: string): Promise<KycStatus> {
  const row = await ensureVerification(deps.db, phoneE164, kyc.name, deps.clock.nowMs());
  if (row.decision === 'approved' || !needsNewSession(row, deps.clock.nowMs())) return statusOf(deps, row, row.sessionUrl ?? '');
  let start = startsInFlight.get(phoneE164);
  if (start === undefined) {
    start = startSession(deps, kyc, row).finally(() => startsInFlight.delete(phoneE164));
    startsInFlight.set(phoneE164, start);
  }
  const url = await start;
  return statusOf(deps, await readVerificationByPhone(deps.db, phoneE164), url);
}

/**
 * Starts the receiver's next session if this request wins the store's lease;
 * else waits for the winner's session to appear, and takes the lease itself
 * should the winner's run out (it died). Returns the session's link.
 */
async function startSession(deps: KycDeps, kyc: SessionKycProvider, row: ReceiverVerification): Promise<string> {
  const token = crypto.randomBytes(12).toString('hex');
  for (let step = 0; step < WAIT_STEPS_MAX; step++) {
    const nowMs = deps.clock.nowMs();
    if (await claimSessionStart(deps.db, { pk: row.pk, token, nowMs, leaseUntilMs: nowMs + START_LEASE_MS })) {
      let session: KycSession;
      try {
        session = await startKycSession(kyc, { phoneE164: row.phone, vendorData: deps.providerKeys.uuid('receiver', row.pk) });
      } catch (error) {
        await releaseSessionStart(deps.db, row.pk, token);
        throw error;
      }
      if (await recordStartedSession(deps.db, { pk: row.pk, token, session, nowMs: deps.clock.nowMs() })) return session.url;
    }
    const current = await readVerificationByPhone(deps.db, row.phone);
    if (current !== null && (current.decision === 'approved' || !needsNewSession(current, deps.clock.nowMs()))) return current.sessionUrl ?? '';
    await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
  }
  return fail('service_unavailable', 'the KYC provider did not answer; nothing was written; retry');
}
