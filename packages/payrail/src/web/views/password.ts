// "Forgot password": asking for a link, and the form a link opens.
import { html, type Html } from '../html.ts';
import { notice } from './components.ts';

/** The new-password field; the e-mail rides along hidden so password managers file it under the right account. */
export function passwordFields(email: string): Html {
  return html`<input type="text" name="username" value="${email}" autocomplete="username" hidden>
    <div class="field">
      <label for="new-password">New password</label>
      <input id="new-password" name="password" type="password" autocomplete="new-password" required minlength="12" maxlength="200">
      <p class="hint">At least 12 characters; a passphrase of a few words works well.</p>
    </div>`;
}

export function forgotBody(input: { csrfToken: string; message: Html | null }): Html {
  return html`<div class="narrow card">
  ${input.message}
  <form method="post" action="/dashboard/password/forgot" class="stack">
    <input type="hidden" name="_csrf" value="${input.csrfToken}">
    <div class="field">
      <label for="email">E-mail</label>
      <input id="email" name="email" type="email" autocomplete="username" required maxlength="254" autofocus>
    </div>
    <button type="submit" class="button primary">Send me a link</button>
  </form>
  <p><a href="/dashboard/login">Back to sign-in</a></p>
</div>`;
}

export function forgotSentBody(): Html {
  return html`${notice('success', 'If an account uses this address, a mail with a link to set a new password is on its way. The link works once, for an hour.')}
  <p><a class="button" href="/dashboard/login">Back to sign-in</a></p>`;
}

export function resetBody(input: { token: string; email: string; message: Html | null }): Html {
  return html`<div class="narrow card">
  ${input.message}
  <p>Set a new password for <strong>${input.email}</strong>. Your other sessions end.</p>
  <form method="post" action="/dashboard/password/reset/${input.token}" class="stack">
    ${passwordFields(input.email)}
    <button type="submit" class="button primary">Set password</button>
  </form>
</div>`;
}
