// The team page of a merchant (admins only): its panel users with their
// roles (each changeable, each member removable), the pending invitations
// (each revocable), and the form that invites someone by e-mail. And the
// page an invitation link opens.
import type { PendingInvitation } from '../../flows/panel/team.ts';
import type { UserListItem } from '../../flows/panel/users.ts';
import { timestamp } from '../format.ts';
import { html, type Html } from '../html.ts';
import { csrfField } from './components.ts';
import { passwordFields } from './password.ts';

const ROLE_TEXT: Record<string, string> = {
  admin: 'admin: everything, the team too',
  developer: 'developer: webhooks and card-form origins, no keys',
  viewer: 'viewer: read only',
};

function roleOptions(selected: string | null): Html[] {
  return Object.entries(ROLE_TEXT).map(([value, text]) => html`<option value="${value}"${value === selected ? html` selected` : ''}>${text}</option>`);
}

function memberActions(csrf: string, u: UserListItem, self: boolean): Html {
  const who = self ? 'yourself' : u.email;
  return html`<form method="post" action="/dashboard/team/members/${u.id}/role" class="inline">
      ${csrfField(csrf)}
      <label class="visually-hidden" for="role-${u.id}">Role of ${u.email}</label>
      <select id="role-${u.id}" name="role">${roleOptions(u.merchant_role)}</select>
      <button type="submit" class="button">Change role</button>
    </form>
    <form method="post" action="/dashboard/team/members/${u.id}/remove" class="inline" data-confirm="Remove ${u.email} from the team? Their account is deleted and their sessions end at once.">
      ${csrfField(csrf)}
      <button type="submit" class="button danger" aria-label="Remove ${who} from the team">Remove</button>
    </form>`;
}

function invitationsSection(csrf: string, invitations: readonly PendingInvitation[]): Html {
  if (invitations.length === 0) return html``;
  return html`<section aria-labelledby="pending-title">
    <h2 id="pending-title">Pending invitations</h2>
    <div class="table-wrap"><table>
      <caption class="visually-hidden">Pending invitations</caption>
      <thead><tr><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Sent</th><th scope="col">Expires</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>${invitations.map(
        (i) =>
          html`<tr><th scope="row">${i.email}</th><td>${i.role ?? ''}</td><td>${timestamp(i.created_at_ms)}</td><td>${timestamp(i.expires_at_ms)}</td><td>
            <form method="post" action="/dashboard/team/invitations/${i.id}/revoke" class="inline">${csrfField(csrf)}<button type="submit" class="button" aria-label="Revoke the invitation of ${i.email}">Revoke</button></form>
          </td></tr>`,
      )}</tbody>
    </table></div>
  </section>`;
}

export function teamBody(input: {
  csrf: string;
  selfId: string;
  users: readonly UserListItem[];
  invitations: readonly PendingInvitation[];
  notice: Html | null;
}): Html {
  return html`${input.notice}
  <div class="table-wrap"><table>
    <caption class="visually-hidden">Team</caption>
    <thead><tr><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Since</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${input.users.map(
      (u) =>
        html`<tr><th scope="row">${u.email}</th><td>${u.merchant_role ?? ''}${u.disabled_at_ms === null ? '' : ' (disabled)'}</td><td>${timestamp(u.created_at_ms)}</td><td>${memberActions(input.csrf, u, u.id === input.selfId)}</td></tr>`,
    )}</tbody>
  </table></div>
  ${invitationsSection(input.csrf, input.invitations)}
  <section aria-labelledby="invite-title">
    <h2 id="invite-title">Invite someone</h2>
    <form method="post" action="/dashboard/team/invite" class="filters">
      ${csrfField(input.csrf)}
      <div class="field"><label for="invite-email">E-mail</label><input id="invite-email" name="email" type="email" required maxlength="254"></div>
      <div class="field"><label for="invite-role">Role</label><select id="invite-role" name="role">${roleOptions('developer')}</select></div>
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
