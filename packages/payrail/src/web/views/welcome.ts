// The one-time credentials page of a merchant onboarded by e-mail: first a
// button (so a mail scanner that opens the link uses nothing up), then the
// credentials, shown once, with the form that sets the panel password.
import type { RevealedCredentials } from '../../flows/onboarding/credentials-link.ts';
import { html, type Html } from '../html.ts';
import { notice } from './components.ts';
import { passwordFields } from './password.ts';

export function welcomeAskBody(token: string): Html {
  return html`<div class="narrow card">
  <p>Your merchant is ready. The next page shows its API credentials <strong>one time only</strong>: have somewhere safe to keep them before you continue.</p>
  <form method="post" action="/dashboard/welcome/${token}"><button type="submit" class="button primary">Show my credentials</button></form>
</div>`;
}

function secret(id: string, label: string, value: string): Html {
  return html`<div class="secret">
    <label for="${id}">${label}</label>
    <div class="secret-row"><input id="${id}" class="mono" readonly value="${value}" data-secret><button type="button" class="button subtle" data-copy="${id}" hidden>Copy</button></div>
  </div>`;
}

export function welcomeSecretsBody(revealed: RevealedCredentials): Html {
  return html`${notice('success', `Merchant ${revealed.merchant_id} is ready.`)}
  <div class="card secrets">
    <p><strong>Copy these now.</strong> They are shown only once: Payrail keeps only their hashes and cannot show them again.</p>
    ${secret('transfer-api-key', 'Transfer API key', revealed.transfer_api_key)}
    ${secret('api-key', 'API key', revealed.source.api_key)}
    ${secret('pin', 'PIN', revealed.source.pin)}
    ${secret('tokenization-token', 'Tokenization token', revealed.source.tokenization_token)}
  </div>
  ${
    revealed.password_token === null
      ? html`<p>Your address already has a control panel account: <a href="/dashboard/login">sign in</a> with it.</p>`
      : html`<section aria-labelledby="password-title" class="narrow card">
    <h2 id="password-title">Control panel password</h2>
    <p>Set a password to sign in to the control panel as <strong>${revealed.email}</strong>.</p>
    <form method="post" action="/dashboard/password/reset/${revealed.password_token}" class="stack">
      ${passwordFields(revealed.email)}
      <button type="submit" class="button primary">Set password</button>
    </form>
  </section>`
  }`;
}
