// Operator pages of onboarding by e-mail: the sign-up queue with approve and
// reject, and the mail outbox (with no SMTP server configured, the place
// where the mails and their links can be read).
import type { MailRow } from '../../flows/mail/outbox.ts';
import type { SignupRow } from '../../flows/onboarding/signup.ts';
import { timestamp } from '../format.ts';
import { html, type Html } from '../html.ts';
import { badge, csrfField, emptyState, type Tone } from './components.ts';

const SIGNUP_TONE: Record<SignupRow['status'], Tone> = { unconfirmed: 'wait', confirmed: 'busy', approved: 'ok', rejected: 'bad' };

export function signupsBody(input: { csrf: string; rows: readonly SignupRow[]; autoApprove: boolean; notice: Html | null }): Html {
  const rows =
    input.rows.length === 0
      ? emptyState('No sign-up requests', 'Requests from the public sign-up page appear here.')
      : html`<div class="table-wrap"><table>
    <caption class="visually-hidden">Sign-up requests</caption>
    <thead><tr><th scope="col">Company</th><th scope="col">Name</th><th scope="col">E-mail</th><th scope="col">Corridors</th><th scope="col">Status</th><th scope="col">Requested</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${input.rows.map(
      (r) => html`<tr>
        <th scope="row">${r.company}</th><td>${r.name}</td><td>${r.email}</td><td>${r.corridors}</td>
        <td>${badge(SIGNUP_TONE[r.status], r.status)}${r.merchant_id === null ? '' : html` <a href="/dashboard/operator/merchants/${r.merchant_id}">${r.merchant_id}</a>`}</td>
        <td>${timestamp(r.created_at_ms)}</td>
        <td class="actions">${
          r.status === 'confirmed'
            ? html`<form method="post" action="/dashboard/operator/signups/${r.id}/approve" class="inline">${csrfField(input.csrf)}<button type="submit" class="button primary">Approve<span class="visually-hidden"> ${r.company}</span></button></form>
              <form method="post" action="/dashboard/operator/signups/${r.id}/reject" class="inline" data-confirm="Reject the request of ${r.company}?">${csrfField(input.csrf)}<button type="submit" class="button danger">Reject<span class="visually-hidden"> ${r.company}</span></button></form>`
            : ''
        }</td>
      </tr>`,
    )}</tbody></table></div>`;
  return html`${input.notice}
  <p>${input.autoApprove ? 'Confirmed requests are approved automatically (PAYRAIL_SIGNUP_AUTO_APPROVE=1).' : 'Confirmed requests wait here for your approval.'} Approval makes the merchant and mails its developer a one-time link to the credentials.</p>
  ${rows}`;
}

const MAIL_TONE: Record<MailRow['status'], Tone> = { pending: 'wait', sent: 'ok', failed: 'bad' };

export function mailBody(input: { rows: readonly MailRow[]; smtp: boolean }): Html {
  const intro = input.smtp
    ? 'Mail is sent over SMTP by the worker; a sent mail keeps only its envelope here.'
    : 'No SMTP server is configured (PAYRAIL_SMTP_URL), so mail stays here: open a mail to read it and follow its link.';
  if (input.rows.length === 0) return html`<p>${intro}</p>${emptyState('No mail', 'Mails Payrail writes appear here.')}`;
  return html`<p>${intro}</p>
  <ul class="mail-list">${input.rows.map(
    (m) => html`<li class="card">
      <p>${badge(MAIL_TONE[m.status], m.status)} <strong>${m.subject}</strong></p>
      <p class="muted">To ${m.to_address}, ${timestamp(m.created_at_ms)}${m.attempts > 0 ? `, ${m.attempts} attempt${m.attempts === 1 ? '' : 's'}` : ''}${m.last_error === null ? '' : `, last error: ${m.last_error}`}</p>
      ${m.text_body === '' ? '' : html`<pre class="mail-text">${m.text_body}</pre>`}
    </li>`,
  )}</ul>`;
}
