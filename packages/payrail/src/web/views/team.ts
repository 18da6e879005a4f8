// The team page of a merchant (admins only): its panel users with their
// roles, and the form that invites someone by e-mail. And the page an
// invitation link opens.
import type { UserListItem } from '../../flows/panel/users.ts';
import { timestamp } from '../format.ts';
import { html, type Html } from '../html.ts';
import { csrfField } from './components.ts';
import { passwordFields } from './password.ts';

const ROLE_TEXT: Record<string, string> = {
  admin: 'admin: everything, the team too',
  developer: 'developer: keys and webhooks',
  viewer: 'viewer: read only',
};

export function teamBody(input: { csrf: string; users: readonly UserListItem[]; notice: Html | null }): Html {
  return html`${input.notice}
  <div class="table-wrap"><table>
    <caption class="visually-hidden">Team</caption>
    <thead><tr><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Since</th></tr></thead>
    <tbody>${input.users.map(
      (u) =>
        html`<tr><th scope="row">${u.email}</th><td>${u.merchant_role ?? ''}${u.disabled_at_ms === null ? '' : ' (disabled)'}</td><td>${timestamp(u.created_at_ms)}</td></tr>`,
    )}</tbody>
  </table></div>
  <section aria-labelledby="invite-title">
    <h2 id="invite-title">Invite someone</h2>
    <form method="post" action="/dashboard/team/invite" class="filters">
      ${csrfField(input.csrf)}
      <div class="field"><label for="invite-email">E-mail</label><input id="invite-email" name="email" type="email" required maxlength="254"></div>
      <div class="field"><label for="invite-role">Role</label><select id="invite-role" name="role">${Object.entries(ROLE_TEXT).map(
        ([value, text]) => html`<option value="${value}"${value === 'developer' ? html` selected` : ''}>${text}</option>`,
      )}</select></div>
      <button type="submit" class="button primary">Send invitation</button>
    </form>
  </section>`;
}

export function invitationBody(input: { token: string; email: string; role: string; message: Html | null }): Html {
  return html`<div class="narrow card">
  ${input.message}
  <p>You are invited as <strong>${ROLE_TEXT[input.role] ?? input.role}</strong>. Set a password to sign in as <strong>${input.email}</strong>.</p>
  <form method="post" action="/dashboard/invitation/${input.token}" class="stack">
    ${passwordFields(input.email)}
    <button type="submit" class="button primary">Accept and set password</button>
  </form>
</div>`;
}
