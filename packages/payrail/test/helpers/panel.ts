// Drives the control panel through app.inject() like a browser would: keeps
// cookies, reads the CSRF token out of the last page, and posts forms
// url-encoded.
import type { App } from '../../src/http/app.ts';

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

  constructor(private readonly app: App) {}

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
    return this.remember(await this.app.inject({ method: 'GET', url, headers: { cookie: this.cookieHeader() } }));
  }

  /** Posts a form; `_csrf` is the current token unless the fields say otherwise. */
  async post(url: string, fields: Record<string, string> = {}, options: { csrf?: boolean } = {}): Promise<PanelResponse> {
    const form = options.csrf === false ? fields : { _csrf: this.csrf, ...fields };
    return this.remember(
      await this.app.inject({
        method: 'POST',
        url,
        headers: { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(form).toString(),
      }),
    );
  }

  async signIn(email: string, password: string): Promise<PanelResponse> {
    await this.get('/dashboard/login');
    return this.post('/dashboard/login', { email, password });
  }
}

/** The text of the first element with this class, tags stripped and spaces collapsed. */
export function textOf(body: string, className: string): string | null {
  const match = new RegExp(`class="[^"]*\\b${className}\\b[^"]*"[^>]*>([\\s\\S]*?)</(div|p|span|section)>`).exec(body);
  if (match === null) return null;
  return decodeEntities(match[1]!.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ').trim());
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

export function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]!);
}
