// Drives the control panel through app.inject() like a browser would: keeps
// cookies, reads the CSRF token out of the last page, and posts forms
// url-encoded. Each client comes from its own address (TEST-NET ranges, RFC
// 5737; app.inject() only, nothing is sent) unless told otherwise, and signs
// in with a second factor like a person with an authenticator app: it
// enrols operators on their first sign-in and types the code at later ones,
// computed at the time of the app's injected clock.
import { Secret, TOTP } from 'otpauth';
import type { ManualClock } from '../../src/domain/clock.ts';
import type { App } from '../../src/http/app.ts';

const TOTP_STEP_MS = 30_000;

/** Per app: its clock, and the authenticator of each e-mail (secret and last step used, since a code works once). */
const clocks = new WeakMap<App, ManualClock>();
const authenticators = new WeakMap<App, Map<string, { secret: string; lastStep: number }>>();

/** Tells the panel clients of `app` which clock it runs on (createTestApp does). */
export function registerPanelClock(app: App, clock: ManualClock): void {
  clocks.set(app, clock);
}

function authenticatorsOf(app: App): Map<string, { secret: string; lastStep: number }> {
  let map = authenticators.get(app);
  if (map === undefined) {
    map = new Map();
    authenticators.set(app, map);
  }
  return map;
}

/** The TOTP code of `secret` at `timestampMs`, as an authenticator app shows it. */
export function totpCode(secret: string, timestampMs: number): string {
  return new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: timestampMs });
}

let nextAddress = 1;
/** A fresh client address: 203.0.113.x, then 198.51.100.x, ... (documentation ranges, never routed). */
export function newAddress(): string {
  const n = nextAddress++;
  const nets = ['203.0.113', '198.51.100', '192.0.2'];
  return `${nets[Math.floor(n / 250) % nets.length]}.${(n % 250) + 1}`;
}

export interface PanelResponse {
  readonly status: number;
  readonly location: string | undefined;
  readonly body: string;
  readonly setCookies: string[];
}

export class PanelClient {
  readonly cookies = new Map<string, string>();
  /** CSRF token of the last page that had a form. */
  csrf = '';

  readonly address: string;

  constructor(
    private readonly app: App,
    options: { address?: string } = {},
  ) {
    this.address = options.address ?? newAddress();
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private remember(response: { statusCode: number; headers: Record<string, unknown>; body: string }): PanelResponse {
    const raw = response.headers['set-cookie'];
    const setCookies = raw === undefined ? [] : Array.isArray(raw) ? (raw as string[]) : [String(raw)];
    for (const line of setCookies) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (value === '' || /Max-Age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(response.body);
    if (token !== null) this.csrf = token[1]!;
    const location = response.headers.location;
    return { status: response.statusCode, location: typeof location === 'string' ? location : undefined, body: response.body, setCookies };
  }

  async get(url: string): Promise<PanelResponse> {
    return this.remember(await this.app.inject({ method: 'GET', url, remoteAddress: this.address, headers: { cookie: this.cookieHeader() } }));
  }

  /** Posts a form; `_csrf` is the current token unless the fields say otherwise. */
  async post(url: string, fields: Record<string, string> = {}, options: { csrf?: boolean } = {}): Promise<PanelResponse> {
    const form = options.csrf === false ? fields : { _csrf: this.csrf, ...fields };
    return this.remember(
      await this.app.inject({
        method: 'POST',
        url,
        remoteAddress: this.address,
        headers: { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(form).toString(),
      }),
    );
  }

  /**
   * Signs in as a person would: the password, then the code when the
   * account has a second factor, then (unless `enrol` is false) enrolment
   * when the panel asks for it. Answers the last step of sign-in itself (303
   * to /dashboard when it worked).
   */
  async signIn(email: string, password: string, options: { enrol?: boolean } = {}): Promise<PanelResponse> {
    await this.get('/dashboard/login');
    const answer = await this.post('/dashboard/login', { email, password });
    if (answer.location === '/dashboard/login/code') {
      const known = authenticatorsOf(this.app).get(email.toLowerCase());
      if (known === undefined) return answer;
      await this.get('/dashboard/login/code');
      return this.post('/dashboard/login/code', { code: this.nextCode(email) });
    }
    if (answer.status === 303 && options.enrol !== false) {
      const home = await this.get('/dashboard');
      if (home.location === '/dashboard/account/two-factor') await this.enrol(email, password);
    }
    return answer;
  }

  /** Enrols the signed-in user's second factor from the enrolment page; answers the page with the recovery codes. */
  async enrol(email: string, password: string): Promise<PanelResponse> {
    const page = await this.get('/dashboard/account/two-factor');
    const secret = /name="secret" value="([A-Z2-7]{32})"/.exec(page.body)?.[1];
    if (secret === undefined) throw new Error(`no enrolment form for ${email}: ${page.status}`);
    authenticatorsOf(this.app).set(email.toLowerCase(), { secret, lastStep: 0 });
    const done = await this.post('/dashboard/account/two-factor', { secret, code: this.nextCode(email), password });
    if (done.status !== 200) throw new Error(`enrolment of ${email} failed: ${done.status} ${textOf(done.body, 'notice')}`);
    return done;
  }

  /** The secret of an e-mail's authenticator, once enrolled through this helper. */
  secretOf(email: string): string | undefined {
    return authenticatorsOf(this.app).get(email.toLowerCase())?.secret;
  }

  /**
   * The code the authenticator shows now. A code works once, so when this
   * step's code was used already, the app's clock moves on to the next step,
   * as a person would wait for the next code.
   */
  nextCode(email: string): string {
    const known = authenticatorsOf(this.app).get(email.toLowerCase());
    const clock = clocks.get(this.app);
    if (known === undefined || clock === undefined) throw new Error(`no authenticator or clock for ${email}`);
    while (Math.floor(clock.nowMs() / TOTP_STEP_MS) <= known.lastStep) clock.advance(TOTP_STEP_MS);
    known.lastStep = Math.floor(clock.nowMs() / TOTP_STEP_MS);
    return totpCode(known.secret, clock.nowMs());
  }
}

/** The text of the first element with this class, tags stripped and spaces collapsed. */
export function textOf(body: string, className: string): string | null {
  const match = new RegExp(`class="[^"]*\\b${className}\\b[^"]*"[^>]*>([\\s\\S]*?)</(div|p|span|section)>`).exec(body);
  if (match === null) return null;
  return decodeEntities(
    match[1]!
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

export function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]!);
}
