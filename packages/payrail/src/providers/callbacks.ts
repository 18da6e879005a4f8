// Provider callbacks (behaviour.md section 18). A provider reports back at
// `POST /providers/<connector>/callbacks`; the route hands the raw body and
// the headers, untouched, to the connector named in the path, which checks
// the signature its provider documents and says what the callback is about.
//
// A callback never moves a payment by itself: it is a hint. The callback flow
// asks the provider for the payment's current state (the same poll the worker
// makes) and applies the answer through the same guarded transitions, so a
// replayed callback changes nothing the second time, a forged one that got
// past a weak signature scheme cannot invent an outcome, and polling stays
// the backstop for callbacks that never arrive.

/** A callback as it arrived: the raw bytes (signatures cover them) and the headers, lower-cased names. */
export interface ProviderCallback {
  readonly rawBody: Buffer;
  readonly headers: Readonly<Record<string, string | undefined>>;
}

/** What a verified callback is about. */
export type CallbackHint =
  /** A card payment: its processorRef (Authorize.net's transId) and, when the callback carries it, Payrail's provider key (invoiceNumber). */
  | { readonly kind: 'card'; readonly processorRef: string; readonly reference: string | null }
  /** A payout: the provider's reference of it and, when carried, Payrail's provider key. */
  | { readonly kind: 'payout'; readonly providerRef: string; readonly reference: string | null }
  /** A receiver's verification: the provider's session id and, when carried, the receiver's phone number (E.164). */
  | { readonly kind: 'kyc'; readonly sessionId: string; readonly phoneE164: string | null; readonly decision: 'approved' | 'declined' | 'pending' };

export type CallbackVerdict =
  /** The signature (or whatever the provider documents) does not hold: answered 401, nothing changes. */
  | { readonly accepted: false; readonly reason: string }
  /** Verified: answered 200 once the hints are applied; an empty list is a callback Payrail has no use for (a test ping). */
  | { readonly accepted: true; readonly hints: readonly CallbackHint[] };

/** The callback side of a connector. Must not throw for a malformed body: that is a refusal. */
export interface CallbackReceiver {
  verify(callback: ProviderCallback): CallbackVerdict | Promise<CallbackVerdict>;
}

/** The largest callback body Payrail reads (bytes); providers send a few kilobytes. */
export const CALLBACK_BODY_MAX_BYTES = 64 * 1024;
