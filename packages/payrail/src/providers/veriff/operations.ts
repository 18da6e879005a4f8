// The SessionKycProvider calls: start a session (POST /v1/sessions) and read
// its decision (GET /v1/sessions/{id}/decision). Each call is bounded by the
// caller's signal and by the connector's own deadline, whichever fires first.
import { isLoopbackHost } from '../../config/provider-url.ts';
import { untilAborted } from '../deadline.ts';
import type { KycSession, KycSessionDecision } from '../kyc.ts';
import { callVeriff, VeriffAnswerUnusable } from './client.ts';
import { sessionDecisionOf, type WireDecision } from './decisions.ts';
import { SESSION_LIFETIME_MS, UUID_PATTERN, VENDOR_DATA_CHARS_MAX, type VeriffSettings } from './settings.ts';

/** Each call's own deadline when the settings name none: the look-up deadline a request waits anyway. */
export const CALL_TIMEOUT_MS_DEFAULT = 10_000;

/** Longest session link kept (Veriff's are about 100 characters). */
const SESSION_URL_CHARS_MAX = 2048;

export interface OperationContext {
  readonly settings: VeriffSettings;
  readonly nowMs: () => number;
}

/**
 * Whether a session link may be handed out: https only, since the receiver
 * opens it to show an identity document and a face. Plain http is taken
 * only from a stand-in Payrail reaches over http on loopback, which serves
 * its own links that way.
 */
function sessionUrlUsable(url: string, settings: VeriffSettings): boolean {
  if (url.startsWith('https://')) return true;
  const configured = new URL(settings.url);
  return url.startsWith('http://') && configured.protocol === 'http:' && isLoopbackHost(configured.hostname);
}

function bounded(context: OperationContext, signal: AbortSignal | undefined): AbortSignal {
  const own = AbortSignal.timeout(context.settings.callTimeoutMs ?? CALL_TIMEOUT_MS_DEFAULT);
  return signal === undefined ? own : AbortSignal.any([signal, own]);
}

/**
 * Starts a session whose vendorData is Payrail's reference of the receiver
 * (never the phone number: Veriff echoes vendorData into its portal and
 * webhooks). Veriff's create answer names the session and its link.
 */
export async function start(context: OperationContext, vendorData: string, signal?: AbortSignal): Promise<KycSession> {
  if (vendorData === '' || vendorData.length > VENDOR_DATA_CHARS_MAX) throw new Error('veriff start: vendorData must be 1 to 1000 characters');
  const limit = bounded(context, signal);
  const answer = await untilAborted(
    callVeriff(context.settings, { method: 'POST', path: '/v1/sessions', body: { verification: { vendorData } }, what: 'create session' }, limit),
    limit,
  );
  const verification = answer.verification as { id?: unknown; url?: unknown } | null | undefined;
  const id = verification?.id;
  const url = verification?.url;
  if (typeof id !== 'string' || !UUID_PATTERN.test(id)) throw new VeriffAnswerUnusable('veriff create session: the answer names no session id');
  if (typeof url !== 'string' || url.length > SESSION_URL_CHARS_MAX || !/^https?:\/\/[^\s]+$/.test(url)) {
    throw new VeriffAnswerUnusable('veriff create session: the answer carries no session url');
  }
  if (!sessionUrlUsable(url, context.settings)) throw new VeriffAnswerUnusable('veriff create session: the session url is not https');
  return { sessionId: id.toLowerCase(), url, expiresAtMs: context.nowMs() + SESSION_LIFETIME_MS };
}

/** The session's decision now: pending while Veriff has none (verification null). */
export async function decision(context: OperationContext, sessionId: string, signal?: AbortSignal): Promise<KycSessionDecision> {
  if (!UUID_PATTERN.test(sessionId)) throw new Error('veriff decision: a session id is a UUID');
  const limit = bounded(context, signal);
  const answer = await untilAborted(
    callVeriff(
      context.settings,
      { method: 'GET', path: `/v1/sessions/${sessionId.toLowerCase()}/decision`, signed: sessionId.toLowerCase(), what: 'session decision' },
      limit,
    ),
    limit,
  );
  const verification = answer.verification as WireDecision | null | undefined;
  if (verification === null || verification === undefined) return { decision: 'pending', reasonCode: null, decidedAtMs: null };
  if (typeof verification !== 'object') throw new VeriffAnswerUnusable('veriff session decision: verification is not an object');
  if (typeof verification.id === 'string' && verification.id.toLowerCase() !== sessionId.toLowerCase()) {
    throw new VeriffAnswerUnusable('veriff session decision: the answer is about another session');
  }
  const kept = sessionDecisionOf(verification);
  if (kept === null) throw new VeriffAnswerUnusable('veriff session decision: a status Payrail does not know');
  return kept;
}
