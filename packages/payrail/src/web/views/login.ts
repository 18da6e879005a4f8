// The sign-in page.
import { html, type Html } from '../html.ts';
import { notice } from './components.ts';

export function loginBody(input: { csrfToken: string; email: string; message: Html | null; sandbox: boolean }): Html {
  const body = html`<div class="narrow card">
  ${input.message}
  <form method="post" action="/dashboard/login" class="stack">
    <input type="hidden" name="_csrf" value="${input.csrfToken}">
    <div class="field">
      <label for="email">E-mail</label>
      <input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${input.email}" ${input.email === '' ? html`autofocus` : ''}>
    </div>
    <div class="field">
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="200" ${input.email !== '' ? html`autofocus` : ''}>
    </div>
    <button type="submit" class="button primary">Sign in</button>
  </form>
  <p><a href="/dashboard/password/forgot">Forgot your password?</a></p>
  ${input.sandbox ? html`<p>No account yet? <a href="/signup">Get sandbox access</a>.</p>` : ''}
  <p class="hint">Accounts are created by the operator, or by a one-time link in a mail from Payrail.</p>
</div>`;
  return body;
}

export function loginMessage(
  outcome: 'invalid' | 'wrong_code' | 'wrong_password' | 'locked' | 'signed_out' | 'expired' | 'busy' | 'password_set',
  lockedForMs = 0,
): Html {
  switch (outcome) {
    case 'invalid':
      return notice('error', 'Wrong e-mail or password.');
    case 'wrong_code':
      return notice('error', 'Wrong or already used code. Type the code your app shows now, or a recovery code.');
    case 'wrong_password':
      return notice('error', 'Wrong password or code.');
    case 'locked': {
      // Which lock (this address or this account) is not said: it would tell an outsider what to try next.
      if (lockedForMs < 60_000) {
        const seconds = Math.max(1, Math.ceil(lockedForMs / 1000));
        return notice('error', `Too many failed sign-ins. Wait ${seconds} second${seconds === 1 ? '' : 's'} and try again.`);
      }
      const minutes = Math.max(1, Math.ceil(lockedForMs / 60_000));
      return notice('error', `Too many failed sign-ins. Sign-in is locked; try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`);
    }
    case 'busy':
      return notice('error', 'Too many sign-ins at once. Please try again in a moment.');
    case 'password_set':
      return notice('success', 'Your password is set. Sign in with it.');
    case 'signed_out':
      return notice('success', 'You are signed out.');
    case 'expired':
      return notice('info', 'Please sign in to continue.');
  }
}
