// The access token of MoMo's Disbursement product: requested with the API
// user and key (Basic authentication) and the subscription key, kept until
// shortly before it expires (MTN advises against a token per transaction),
// and requested again when MoMo refuses it early (a 401). One request at a
// time: callers that find no valid token share the one in flight, and that
// request runs on its own deadline, so one caller giving up does not fail
// the others.
import { untilAborted } from '../deadline.ts';
import { callMomo, MtnMomoUnknownOutcome } from './client.ts';
import { type MtnMomoSettings, PRODUCT_PATH, TOKEN_LIFETIME_MS_MAX, TOKEN_LIFETIME_MS_MIN, TOKEN_REFRESH_MARGIN_MS } from './settings.ts';
import { errorOf, parseToken } from './wire.ts';

interface CachedToken {
  readonly value: string;
  /** When the cache stops handing it out (before MoMo's expiry). */
  readonly refreshAtMs: number;
}

/** How long a token is used: up to TOKEN_REFRESH_MARGIN_MS before its expiry, or 5/6 of a short life. */
export function tokenUseMs(expiresInSeconds: number): number {
  const lifetimeMs = Math.min(Math.max(0, expiresInSeconds) * 1000, TOKEN_LIFETIME_MS_MAX);
  const useMs = lifetimeMs > 2 * TOKEN_REFRESH_MARGIN_MS ? lifetimeMs - TOKEN_REFRESH_MARGIN_MS : Math.floor((lifetimeMs * 5) / 6);
  return Math.max(TOKEN_LIFETIME_MS_MIN, useMs);
}

export class TokenCache {
  private cached: CachedToken | null = null;
  private inFlight: Promise<CachedToken> | null = null;
  /** Token requests made, for tests and logs. */
  requests = 0;

  constructor(
    private readonly settings: MtnMomoSettings,
    private readonly timeoutMs: number,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** A token valid now: the cached one, the one being requested, or a new one. */
  async token(signal: AbortSignal): Promise<string> {
    const cached = this.cached;
    if (cached !== null && this.nowMs() < cached.refreshAtMs) return cached.value;
    this.inFlight ??= this.request().finally(() => {
      this.inFlight = null;
    });
    return (await untilAborted(this.inFlight, signal)).value;
  }

  /** Drops `token` after MoMo refused it (a 401), unless a newer one replaced it already. */
  invalidate(token: string): void {
    if (this.cached?.value === token) this.cached = null;
  }

  private async request(): Promise<CachedToken> {
    this.requests += 1;
    const basic = Buffer.from(`${this.settings.apiUser}:${this.settings.apiKey.reveal()}`, 'utf8').toString('base64');
    // The token request runs on its own deadline only: callers stop waiting on their own signals (token()).
    const answer = await callMomo(
      this.settings.url,
      {
        name: 'token',
        method: 'POST',
        path: `${PRODUCT_PATH}/token/`,
        headers: { authorization: `Basic ${basic}`, 'ocp-apim-subscription-key': this.settings.subscriptionKey.reveal() },
      },
      new AbortController().signal,
      this.timeoutMs,
    );
    if (answer.status !== 200) {
      const error = errorOf(answer.body);
      const why = answer.status === 401 ? ' (the API user, API key or subscription key is refused)' : '';
      throw new MtnMomoUnknownOutcome(`mtn-momo token: HTTP ${answer.status}${error === null ? '' : ` ${error.code}`}${why}`);
    }
    const token = parseToken(answer.body);
    const cached = { value: token.access_token, refreshAtMs: this.nowMs() + tokenUseMs(token.expires_in) };
    this.cached = cached;
    return cached;
  }
}
