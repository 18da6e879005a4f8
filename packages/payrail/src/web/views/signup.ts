// The public sandbox sign-up pages: the form, "check your inbox", and the
// confirmation link's page.
import type { SignupForm, SignupProblems } from '../../domain/signup-form.ts';
import { html, type Html } from '../html.ts';
import { notice } from './components.ts';

function field(id: keyof SignupForm, label: string, value: string, problem: string | undefined, attrs: Html): Html {
  return html`<div class="field">
    <label for="${id}">${label}</label>
    <input id="${id}" name="${id}" value="${value}" ${attrs}${problem === undefined ? '' : html` aria-invalid="true" aria-describedby="${id}-problem"`}>
    ${problem === undefined ? '' : html`<p class="field-problem" id="${id}-problem">${problem}</p>`}
  </div>`;
}

export function signupFormBody(input: { csrfToken: string; form: SignupForm; problems: SignupProblems; message?: string }): Html {
  const p = input.problems;
  const count = Object.keys(p).length;
  return html`<div class="narrow card">
  ${input.message === undefined ? '' : notice('error', input.message)}
  ${count === 0 ? '' : notice('error', `Please correct ${count === 1 ? 'the field' : `the ${count} fields`} below.`)}
  <p>Get sandbox API credentials by e-mail. We send a link to confirm your address; once your request is approved, a second mail brings a one-time link to your credentials.</p>
  <form method="post" action="/signup" class="stack" novalidate>
    <input type="hidden" name="_csrf" value="${input.csrfToken}">
    ${field('name', 'Your name', input.form.name, p.name, html`required maxlength="100" autocomplete="name"`)}
    ${field('company', 'Company', input.form.company, p.company, html`required maxlength="120" autocomplete="organization"`)}
    ${field('email', 'E-mail', input.form.email, p.email, html`type="email" required maxlength="254" autocomplete="email"`)}
    ${field('corridors', 'Intended corridors', input.form.corridors, p.corridors, html`required maxlength="300" placeholder="US to Kenya, US to the Philippines"`)}
    <button type="submit" class="button primary">Request sandbox access</button>
  </form>
  <p class="hint">Production credentials come from Payrail support, not from this form.</p>
</div>`;
}

export function signupSentBody(): Html {
  return html`${notice('success', 'Check your inbox. If the address can get sandbox access, a mail with a confirmation link is on its way.')}
  <p>The link works for 24 hours. No mail? Check your spam folder, or send the form again.</p>`;
}

export function confirmAskBody(token: string): Html {
  return html`<div class="narrow card">
  <p>Confirm that this is your e-mail address to continue your sandbox request.</p>
  <form method="post" action="/signup/confirm/${token}"><button type="submit" class="button primary">Confirm my address</button></form>
</div>`;
}

export function confirmedBody(approved: boolean): Html {
  return approved
    ? html`${notice('success', 'Address confirmed and access approved. A mail with a one-time link to your sandbox credentials is on its way.')}`
    : html`${notice('success', 'Address confirmed. Your request waits for approval by the operator; you will get a mail when it is approved.')}`;
}
