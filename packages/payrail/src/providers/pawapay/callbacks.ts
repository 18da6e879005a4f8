// pawaPay's payout callbacks, at POST /providers/pawapay/callbacks. Payrail
// takes only signed ones (pawaPay's dashboard: enable signed callbacks): a
// callback without a valid signature, or one Payrail cannot read, is refused
// and changes nothing. A verified callback is a hint: the callback flow reads
// the payout's status from pawaPay before anything moves.
//
// The signing keys come from pawaPay (GET /v2/public-key/http), cached for
// KEY_CACHE_TTL_MS and read again when a callback names a key id not in the
// cache (pawaPay rotated its key), at most once per KEY_REFRESH_MIN_INTERVAL_MS.
import crypto, { type KeyObject } from 'node:crypto';
import type { Logger } from 'pino';
import { CALLBACK_BODY_MAX_BYTES, type CallbackReceiver, type CallbackVerdict, type ProviderCallback } from '../callbacks.ts';
import { callApi, recordOf, textOf, withTimeout } from './client.ts';
import { parseSignatureInput, type SignatureTimeLimits, verifySignature } from './signatures.ts';
import {
  CALLBACK_PATH,
  KEY_CACHE_TTL_MS,
  KEY_FETCH_TIMEOUT_MS,
  KEY_REFRESH_MIN_INTERVAL_MS,
  KEYS_MAX,
  type PawaPaySettings,
  SIGNATURE_AGE_MAX_MS,
  SIGNATURE_CLOCK_SKEW_MS,
  SIGNATURE_CREATED_AHEAD_MAX_MS,
} from './settings.ts';

const SIGNATURE_TIME_LIMITS: SignatureTimeLimits = {
  expiresSkewSeconds: SIGNATURE_CLOCK_SKEW_MS / 1000,
  createdAheadMaxSeconds: SIGNATURE_CREATED_AHEAD_MAX_MS / 1000,
  ageMaxSeconds: SIGNATURE_AGE_MAX_MS / 1000,
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** pawaPay's published callback signing keys, cached. */
export class PawaPayKeys {
  private keys: ReadonlyMap<string, KeyObject> = new Map();
  private readAtMs = Number.NEGATIVE_INFINITY;
  private triedAtMs = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | null = null;

  constructor(
    private readonly settings: PawaPaySettings,
    private readonly log: Logger,
    private readonly nowMs: () => number,
  ) {}

  /** The keys, read from pawaPay when the cache is stale or lacks `keyId`, unless a read was tried in the last minute. */
  async current(keyId: string | null): Promise<ReadonlyMap<string, KeyObject>> {
    const nowMs = this.nowMs();
    const stale = nowMs - this.readAtMs >= KEY_CACHE_TTL_MS || (keyId !== null && !this.keys.has(keyId));
    if (stale && nowMs - this.triedAtMs >= KEY_REFRESH_MIN_INTERVAL_MS) await this.refresh();
    else if (this.reading !== null) await this.reading;
    return this.keys;
  }

  private refresh(): Promise<void> {
    // One read at a time; callbacks arriving meanwhile wait for it.
    this.reading ??= this.read().finally(() => {
      this.reading = null;
    });
    return this.reading;
  }

  private async read(): Promise<void> {
    this.triedAtMs = this.nowMs();
    try {
      const answer = await callApi(this.settings, 'GET', 'v2/public-key/http', undefined, withTimeout(undefined, KEY_FETCH_TIMEOUT_MS));
      if (answer.status !== 200 || !Array.isArray(answer.json)) throw new Error(`HTTP ${answer.status}`);
      const keys = new Map<string, KeyObject>();
      for (const entry of answer.json.slice(0, KEYS_MAX)) {
        const record = recordOf(entry);
        const id = textOf(record?.id, 200);
        const pem = textOf(record?.key, 8192);
        if (id === null || pem === null) continue;
        try {
          keys.set(id, crypto.createPublicKey(pem));
        } catch {
          this.log.warn({ keyId: id }, 'pawapay: a published callback key is not a public key');
        }
      }
      this.keys = keys;
      this.readAtMs = this.nowMs();
    } catch (error) {
      // Keep the keys Payrail has; a callback tries again once the refresh interval has passed.
      this.log.warn({ err: (error as Error).message }, 'pawapay: could not read the callback signing keys');
    }
  }
}

export function callbackReceiver(settings: PawaPaySettings, log: Logger, nowMs: () => number = settings.nowMs ?? Date.now): CallbackReceiver {
  const keys = new PawaPayKeys(settings, log, nowMs);
  return {
    async verify(callback: ProviderCallback): Promise<CallbackVerdict> {
      try {
        return await verifyCallback(callback, keys, nowMs);
      } catch {
        // verify must never throw: anything unforeseen is a refusal.
        return { accepted: false, reason: 'the callback could not be verified' };
      }
    },
  };
}

async function verifyCallback(callback: ProviderCallback, keys: PawaPayKeys, nowMs: () => number): Promise<CallbackVerdict> {
  if (callback.rawBody.length === 0 || callback.rawBody.length > CALLBACK_BODY_MAX_BYTES) return { accepted: false, reason: 'no callback body' };
  if (callback.headers.signature === undefined || callback.headers['signature-input'] === undefined) {
    return { accepted: false, reason: "the callback is not signed (enable signed callbacks in pawaPay's dashboard)" };
  }
  const keyId = parseSignatureInput(callback.headers['signature-input'])?.keyId ?? null;
  const published = await keys.current(keyId);
  const check = (headers: Readonly<Record<string, string | undefined>>) =>
    verifySignature({ method: 'POST', path: CALLBACK_PATH, rawBody: callback.rawBody, headers }, published, Math.floor(nowMs() / 1000), SIGNATURE_TIME_LIMITS);
  let verdict = check(callback.headers);
  // pawaPay signs the host it posted to (@authority); behind a proxy that
  // rewrites Host, that host is in X-Forwarded-Host. Trying it weakens
  // nothing: the signature must still hold, and a callback is only a hint.
  const forwardedHost = callback.headers['x-forwarded-host']?.split(',')[0]?.trim();
  if (!verdict.ok && forwardedHost !== undefined && forwardedHost !== '') verdict = check({ ...callback.headers, host: forwardedHost });
  if (!verdict.ok) return { accepted: false, reason: verdict.reason };
  let body: unknown;
  try {
    body = JSON.parse(callback.rawBody.toString('utf8'));
  } catch {
    return { accepted: false, reason: 'the callback body is not JSON' };
  }
  const payoutId = textOf(recordOf(body)?.payoutId, 36);
  // Deposits and refunds (depositId, refundId) are no business of Payrail's: verified, nothing to do.
  if (payoutId === null) return { accepted: true, hints: [] };
  if (!UUID.test(payoutId)) return { accepted: false, reason: 'the callback names no payout Payrail could have made' };
  return { accepted: true, hints: [{ kind: 'payout', providerRef: payoutId.toLowerCase(), reference: null }] };
}
