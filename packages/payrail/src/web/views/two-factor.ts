// Second-factor pages: the code step of sign-in, enrolment (QR code of the
// otpauth:// URI rendered here as inline SVG, plus the secret and URI as
// text for apps that cannot scan), the recovery codes shown once, and the
// form that confirms identity before credentials change (re-authentication).
import { renderSVG } from 'uqr';
import { timestamp } from '../format.ts';
import { html, type Html, trusted } from '../html.ts';
import { csrfField, notice } from './components.ts';

/** The code field shared by every form that asks for one. */
function codeField(label = 'Code from your authenticator app'): Html {
  return html`<div class="field">
      <label for="code">${label}</label>
      <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="20" spellcheck="false">
    </div>`;
}

function passwordField(autofocus: boolean): Html {
  return html`<div class="field">
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="200" ${autofocus ? html`autofocus` : ''}>
    </div>`;
}

export function codeStepBody(input: { csrf: string; message: Html | null }): Html {
  return html`<div class="narrow card">
  ${input.message}
  <form method="post" action="/dashboard/login/code" class="stack">
    ${csrfField(input.csrf)}
    ${codeField()}
    <button type="submit" class="button primary">Continue</button>
  </form>
  <p class="hint">Lost your phone? Type one of your recovery codes instead (for example <code>ABCDE-FGHJK</code>); each works once.</p>
</div>`;
}

/**
 * The QR code of the otpauth:// URI as inline SVG. The markup comes from the
 * uqr library (rectangles and one path, with fill attributes only, so the
 * panel's CSP needs no inline styles); the URI only decides which modules
 * are dark, so no data reaches the markup as text.
 */
function qrCode(uri: string): Html {
  const svg = renderSVG(uri, { ecc: 'M', border: 2 }).replace('<svg ', '<svg role="img" aria-labelledby="qr-title" class="qr" ');
  return trusted(svg.replace(/^(<svg[^>]*>)/, '$1<title id="qr-title">QR code for your authenticator app</title>'));
}

export function enrolBody(input: {
  csrf: string;
  email: string;
  secret: string;
  uri: string;
  required: boolean;
  enrolledAtMs: number | null;
  canRemove: boolean;
  message: Html | null;
}): Html {
  const status =
    input.enrolledAtMs === null
      ? input.required
        ? notice('info', 'Operators sign in with a password and a code from an authenticator app. Set it up to continue.')
        : html`<p>Two-factor sign-in is off. Turn it on to ask for a code from your phone at every sign-in.</p>`
      : html`<p>Two-factor sign-in is on since ${timestamp(input.enrolledAtMs)}. Set up a new phone below; the old one stops working.</p>`;
  const remove = input.canRemove
    ? html`<section aria-labelledby="remove-title" class="card">
    <h2 id="remove-title">Turn two-factor sign-in off</h2>
    <form method="post" action="/dashboard/account/two-factor/remove" class="stack" data-confirm="Turn two-factor sign-in off?">
      ${csrfField(input.csrf)}
      ${passwordField(false)}
      ${codeField()}
      <button type="submit" class="button danger">Turn off</button>
    </form>
  </section>`
    : '';
  return html`${input.message}
  ${status}
  <section aria-labelledby="enrol-title" class="card">
    <h2 id="enrol-title">${input.enrolledAtMs === null ? 'Set up your authenticator app' : 'Set up a new phone'}</h2>
    <ol class="steps">
      <li>Scan this code with an authenticator app (any app for "TOTP" codes).
        <div class="qr-wrap">${qrCode(input.uri)}</div>
        <p class="hint">Cannot scan? Enter this key in the app: <code class="mono">${input.secret}</code></p>
        <p class="hint">Or open: <code class="mono break">${input.uri}</code></p>
      </li>
      <li>Type the 6-digit code the app shows, and your password${input.enrolledAtMs === null ? '' : ', and a code from your current phone (or a recovery code)'}.</li>
    </ol>
    <form method="post" action="/dashboard/account/two-factor" class="stack">
      ${csrfField(input.csrf)}
      <input type="hidden" name="secret" value="${input.secret}">
      ${codeField('6-digit code')}
      ${
        input.enrolledAtMs === null
          ? ''
          : html`<div class="field">
      <label for="current-code">Code from your current phone, or a recovery code</label>
      <input id="current-code" name="current_code" autocomplete="off" required maxlength="20" spellcheck="false">
    </div>`
      }
      ${passwordField(false)}
      <button type="submit" class="button primary">Turn on</button>
    </form>
    <p class="hint">Signed in as ${input.email}.</p>
  </section>
  ${remove}`;
}

export function recoveryCodesBody(codes: readonly string[]): Html {
  return html`${notice('success', 'Two-factor sign-in is on.')}
  <div class="card secrets">
    <p><strong>Keep these recovery codes somewhere safe now.</strong> Each signs you in once without your phone. They are shown only once: Payrail keeps only their hashes.</p>
    <ul class="recovery-codes">${codes.map((code) => html`<li><code>${code}</code></li>`)}</ul>
  </div>
  <p><a class="button" href="/dashboard">Done, continue</a></p>`;
}

export function reauthBody(input: { csrf: string; next: string; withCode: boolean; message: Html | null }): Html {
  return html`${input.message}
  <div class="narrow card">
    <p>Creating or rotating credentials needs your password${input.withCode ? ' and a code' : ''} from the last 5 minutes.</p>
    <form method="post" action="/dashboard/reauth" class="stack">
      ${csrfField(input.csrf)}
      <input type="hidden" name="next" value="${input.next}">
      ${passwordField(true)}
      ${input.withCode ? codeField() : ''}
      <button type="submit" class="button primary">Confirm</button>
    </form>
  </div>`;
}
