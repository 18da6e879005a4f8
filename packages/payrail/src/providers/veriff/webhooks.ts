// Veriff's webhooks: a POST whose X-HMAC-SIGNATURE header is the hex
// HMAC-SHA256 of the raw body keyed with the integration's shared secret.
// Two shapes arrive at the one callback URL:
// - the decision webhook: { status, verification: { id, status, code,
//   reasonCode, decisionTime, vendorData, ... }, technicalData };
// - the event webhook: { id, attemptId, feature, code, action, vendorData },
//   the session's progress (started, submitted), no decision.
// Both become a `kyc` hint naming the session; the callback flow then asks
// Veriff for the session's decision, so the webhook is only a hint.
import type { Secret } from '../../domain/secret.ts';
import { CALLBACK_BODY_MAX_BYTES, type CallbackHint, type CallbackReceiver, type CallbackVerdict, type ProviderCallback } from '../callbacks.ts';
import { decisionOfStatus, hintDecisionOf } from './decisions.ts';
import { UUID_PATTERN } from './settings.ts';
import { signatureHolds } from './signature.ts';

const SIGNATURE_HEADER = 'x-hmac-signature';

/** The hints a verified body carries; null when it is neither of Veriff's shapes. */
export function hintsOfWebhook(body: unknown): readonly CallbackHint[] | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const fields = body as { verification?: unknown; id?: unknown; action?: unknown };
  if (fields.verification !== undefined) {
    const verification = fields.verification as { id?: unknown; status?: unknown } | null;
    if (verification === null || typeof verification !== 'object') return null;
    if (typeof verification.id !== 'string' || !UUID_PATTERN.test(verification.id)) return null;
    const decision = decisionOfStatus(verification.status);
    // A status Payrail does not know is still a hint: the decision read says what it is.
    return [{ kind: 'kyc', sessionId: verification.id.toLowerCase(), phoneE164: null, decision: decision === null ? 'pending' : hintDecisionOf(decision) }];
  }
  if (typeof fields.id === 'string' && UUID_PATTERN.test(fields.id) && typeof fields.action === 'string') {
    return [{ kind: 'kyc', sessionId: fields.id.toLowerCase(), phoneE164: null, decision: 'pending' }];
  }
  return null;
}

/** A CallbackReceiver that answers at once. */
export interface SyncCallbackReceiver extends CallbackReceiver {
  verify(callback: ProviderCallback): CallbackVerdict;
}

/** The connector's CallbackReceiver; its answer is synchronous (a signature check and a parse). */
export function webhookReceiver(sharedSecret: Secret<string>): SyncCallbackReceiver {
  return {
    verify(callback: ProviderCallback): CallbackVerdict {
      if (callback.rawBody.byteLength > CALLBACK_BODY_MAX_BYTES) return { accepted: false, reason: 'body too large' };
      if (!signatureHolds(sharedSecret.reveal(), callback.rawBody, callback.headers[SIGNATURE_HEADER])) {
        return { accepted: false, reason: 'X-HMAC-SIGNATURE is missing or does not hold' };
      }
      let body: unknown;
      try {
        body = JSON.parse(callback.rawBody.toString('utf8'));
      } catch {
        return { accepted: false, reason: 'body is not JSON' };
      }
      const hints = hintsOfWebhook(body);
      if (hints === null) return { accepted: false, reason: 'not a Veriff decision or event webhook' };
      return { accepted: true, hints };
    },
  };
}
