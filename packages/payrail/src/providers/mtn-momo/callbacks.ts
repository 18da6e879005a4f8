// MoMo's callbacks: once a transfer ends, MoMo sends its result (the same
// shape as the transfer status answer) to the X-Callback-Url the transfer
// carried. MoMo signs nothing, so anyone who knows the URL could send one:
// a well-formed body is taken only as a hint naming a payout, and the
// callback flow reads the transfer's status from MoMo before anything
// changes (behaviour.md section 18). The body may not carry the
// X-Reference-Id; it carries the externalId Payrail sent, which is
// Payrail's provider key of the transfer (the hint's `reference`).
import { CALLBACK_BODY_MAX_BYTES, type CallbackHint, type CallbackReceiver, type CallbackVerdict, type ProviderCallback } from '../callbacks.ts';
import { idText, isRecord, transferResultOf } from './wire.ts';

const REFERENCE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Payrail's provider keys are at most 20 characters of [0-9a-z] (domain/provider-keys.ts). */
const PROVIDER_KEY = /^[0-9a-z]{1,20}$/;

/** What a callback body is about; null when it is not a MoMo transfer result. */
export function hintsOfCallback(body: unknown): readonly CallbackHint[] | null {
  if (!isRecord(body) || transferResultOf(body) === null) return null;
  const referenceText = idText(body.referenceId) ?? idText(body['X-Reference-Id']);
  const referenceId = referenceText !== null && REFERENCE_ID.test(referenceText) ? referenceText.toLowerCase() : null;
  const externalText = idText(body.externalId);
  const reference = externalText !== null && PROVIDER_KEY.test(externalText) ? externalText : null;
  // Without either there is nothing to ask MoMo about: a result of a payment some other system made with these credentials.
  if (referenceId === null && reference === null) return [];
  // Without the reference id the key stands in for it; the flow finds the transfer by `reference` first.
  return [{ kind: 'payout', providerRef: referenceId ?? reference!, reference }];
}

export function callbackReceiver(): CallbackReceiver {
  return {
    verify(callback: ProviderCallback): CallbackVerdict {
      if (callback.rawBody.byteLength > CALLBACK_BODY_MAX_BYTES) return { accepted: false, reason: 'body too large' };
      let body: unknown;
      try {
        body = JSON.parse(callback.rawBody.toString('utf8').replace(/^\uFEFF/, ''));
      } catch {
        return { accepted: false, reason: 'body is not JSON' };
      }
      const hints = hintsOfCallback(body);
      if (hints === null) return { accepted: false, reason: 'not an MTN MoMo transfer result' };
      return { accepted: true, hints };
    },
  };
}
