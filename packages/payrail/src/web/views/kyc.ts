// Receiver KYC lookup: the same answer GET /api/kyc/:account gives, for a
// person at the panel.
import { html, type Html } from '../html.ts';
import { badge, facts, notice } from './components.ts';

export interface KycView {
  readonly kyc_verify: boolean;
  readonly money_limit: string;
  readonly kyc_url: string;
}

export type KycOutcome =
  | { readonly kind: 'none' }
  | { readonly kind: 'result'; readonly account: string; readonly result: KycView }
  | { readonly kind: 'error'; readonly account: string; readonly message: string };

export function kycBody(outcome: KycOutcome): Html {
  const account = outcome.kind === 'result' || outcome.kind === 'error' ? outcome.account : '';
  const form = html`<form method="get" action="/dashboard/kyc" class="filters" role="search" aria-label="Look up a receiver">
    <div class="field">
      <label for="account">Receiver phone</label>
      <input id="account" name="account" inputmode="tel" autocomplete="off" required maxlength="20" value="${account}" aria-describedby="account-hint">
      <p id="account-hint" class="hint">Country code and number, with or without +, for example 254712345678.</p>
    </div>
    <button type="submit" class="button primary">Look up</button>
  </form>`;
  let result: Html = html``;
  if (outcome.kind === 'error') result = notice('error', outcome.message);
  if (outcome.kind === 'result') {
    const r = outcome.result;
    result = html`<section aria-labelledby="kyc-result-title" class="card">
      <h2 id="kyc-result-title">Receiver ${outcome.account}</h2>
      ${facts([
        ['Verified', r.kyc_verify ? badge('ok', 'verified') : badge('wait', 'not verified')],
        ['Limit per transfer', `${r.money_limit} USD`],
        [
          'Verification link',
          r.kyc_url === '' ? '—' : /^https?:\/\//.test(r.kyc_url) ? html`<a href="${r.kyc_url}" rel="noreferrer">${r.kyc_url}</a>` : r.kyc_url,
        ],
      ])}
      ${r.kyc_verify ? '' : html`<p class="hint">Send the verification link to the receiver; completing it raises the limit.</p>`}
    </section>`;
  }
  return html`${form}${result}`;
}
