// The operator's audit log page: events newest first, filtered by action and
// UTC days, paged by event id. Every value is data and is escaped.
import { AUDIT_ACTIONS } from '../../domain/audit.ts';
import type { AuditEventRow } from '../../flows/operations/audit.ts';
import { timestamp } from '../format.ts';
import { html, type Html } from '../html.ts';
import { badge, emptyState, pager, type Tone } from './components.ts';

export interface AuditFilterInput {
  readonly action: string;
  readonly from: string;
  readonly to: string;
}

const OUTCOME_TONES: Record<string, Tone> = { success: 'ok', failure: 'wait', denied: 'bad' };

function actorText(row: AuditEventRow): string {
  const who = row.actor_label ?? row.actor_id;
  return who === null ? row.actor_kind : `${row.actor_kind} ${who}`;
}

function filterForm(input: AuditFilterInput): Html {
  return html`<form method="get" action="/dashboard/operator/audit" class="filters" role="search" aria-label="Filter the audit log">
    <div class="field">
      <label for="action">Action</label>
      <select id="action" name="action">
        <option value="">Any</option>
        ${AUDIT_ACTIONS.map((a) => html`<option value="${a}"${input.action === a ? html` selected` : ''}>${a}</option>`)}
      </select>
    </div>
    <div class="field"><label for="from">From (UTC)</label><input id="from" name="from" type="date" value="${input.from}"></div>
    <div class="field"><label for="to">To (UTC, inclusive)</label><input id="to" name="to" type="date" value="${input.to}"></div>
    <button type="submit" class="button">Apply</button>
    <a class="button subtle" href="/dashboard/operator/audit">Clear</a>
  </form>`;
}

export function auditBody(input: AuditFilterInput, rows: readonly AuditEventRow[], nextBefore: number | null, filtered: boolean): Html {
  const table =
    rows.length === 0
      ? emptyState(filtered ? 'No events match these filters' : 'No events yet', 'Sign-ins, operator actions and credential changes appear here.')
      : html`<div class="table-wrap"><table class="audit">
        <caption class="visually-hidden">Audit events, newest first</caption>
        <thead><tr><th scope="col">Time</th><th scope="col">Actor</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Address</th><th scope="col">Outcome</th><th scope="col">Detail</th></tr></thead>
        <tbody>${rows.map(
          (e) => html`<tr>
            <td>${timestamp(e.at_ms)}</td>
            <td>${actorText(e)}</td>
            <th scope="row"><code>${e.action}</code></th>
            <td>${e.target === null ? '—' : html`<code>${e.target}</code>`}</td>
            <td>${e.client_address ?? '—'}</td>
            <td>${badge(OUTCOME_TONES[e.outcome] ?? 'wait', e.outcome)}</td>
            <td>${e.detail ?? ''}</td>
          </tr>`,
        )}</tbody>
      </table></div>`;
  const query: Record<string, string> = {};
  if (input.action !== '') query.action = input.action;
  if (input.from !== '') query.from = input.from;
  if (input.to !== '') query.to = input.to;
  return html`<p class="lede">Who did what, from where: sign-ins, operator actions, credential and user changes, and refused API credentials. Append-only.</p>
  ${filterForm(input)}${table}${pager('/dashboard/operator/audit', query, nextBefore)}`;
}
