// Charges: the filterable list and the detail page with linked transfers.
import { chargeTone, money, stateName, stateTone, timestamp } from '../format.ts';
import { html, type Html } from '../html.ts';
import { CHARGE_STATUSES, type ChargeListRow, type ChargeRow, type LinkedTransferRow } from '../queries.ts';
import { badge, emptyState, facts, pager } from './components.ts';

export interface ChargeFilterInput {
  readonly status: string;
  readonly from: string;
  readonly to: string;
}

function filterForm(input: ChargeFilterInput): Html {
  return html`<form method="get" action="/dashboard/charges" class="filters" role="search" aria-label="Filter charges">
    <div class="field">
      <label for="status">Status</label>
      <select id="status" name="status">
        <option value="">Any</option>
        ${CHARGE_STATUSES.map((s) => html`<option value="${s}"${input.status === s ? html` selected` : ''}>${s}</option>`)}
      </select>
    </div>
    <div class="field"><label for="from">From (UTC)</label><input id="from" name="from" type="date" value="${input.from}"></div>
    <div class="field"><label for="to">To (UTC, inclusive)</label><input id="to" name="to" type="date" value="${input.to}"></div>
    <button type="submit" class="button">Apply</button>
    <a class="button subtle" href="/dashboard/charges">Clear</a>
  </form>
  <form method="get" action="/dashboard/charges/find" class="filters" role="search" aria-label="Find a charge">
    <div class="field"><label for="ref">Reference number</label><input id="ref" name="ref" inputmode="numeric" pattern="[0-9]{1,18}" maxlength="18" required></div>
    <button type="submit" class="button">Open</button>
  </form>`;
}

export function chargeListBody(input: ChargeFilterInput, rows: readonly ChargeListRow[], nextBefore: number | null, filtered: boolean): Html {
  const table =
    rows.length === 0
      ? emptyState(filtered ? 'No charges match these filters' : 'No charges yet', filtered ? 'Try another status or date range.' : 'Approved, pending and declined card charges will appear here.')
      : html`<div class="table-wrap"><table>
        <caption class="visually-hidden">Charges, newest first</caption>
        <thead><tr><th scope="col">Reference</th><th scope="col">Status</th><th scope="col" class="num">Amount</th><th scope="col">Card</th><th scope="col" class="num">Linked</th><th scope="col">Created</th></tr></thead>
        <tbody>${rows.map(
          (c) => html`<tr>
            <th scope="row"><a href="/dashboard/charges/${c.pk}">${c.pk}</a></th>
            <td>${badge(chargeTone(c.status), c.status)}</td>
            <td class="num">${money(c.amount_cents)} ${c.currency}</td>
            <td>${c.card_type} ···· ${c.last4}</td>
            <td class="num">${money(c.linked_cents)}</td>
            <td>${timestamp(c.created_at_ms)}</td>
          </tr>`,
        )}</tbody>
      </table></div>`;
  const query: Record<string, string> = {};
  if (input.status !== '') query.status = input.status;
  if (input.from !== '') query.from = input.from;
  if (input.to !== '') query.to = input.to;
  return html`${filterForm(input)}${table}${pager('/dashboard/charges', query, nextBefore)}`;
}

/** Billing details from the stored request: names and place only, never the nonce. */
function billingSummary(requestJson: string): string {
  try {
    const request = JSON.parse(requestJson) as { billing_info?: Record<string, unknown>; transaction_details?: Record<string, unknown> };
    const b = request.billing_info ?? {};
    const text = (v: unknown) => (typeof v === 'string' ? v : '');
    return [`${text(b.first_name)} ${text(b.last_name)}`.trim(), text(b.city), text(b.state), text(b.country)].filter((s) => s !== '').join(', ');
  } catch {
    return '';
  }
}

function orderNumber(requestJson: string): string {
  try {
    const details = (JSON.parse(requestJson) as { transaction_details?: Record<string, unknown> }).transaction_details ?? {};
    return typeof details.order_number === 'string' ? details.order_number : '';
  } catch {
    return '';
  }
}

export function chargeDetailBody(charge: ChargeRow, transfers: readonly LinkedTransferRow[]): Html {
  const rows: Array<readonly [string, string | Html]> = [
    ['Status', badge(chargeTone(charge.status), charge.status)],
    ['Amount', `${money(charge.amount_cents)} ${charge.currency}`],
    ['Linked to transfers', `${money(charge.linked_cents)} ${charge.currency}`],
    ['Card', `${charge.card_type} ${charge.bin}······${charge.last4}, expires ${String(charge.expiry_month).padStart(2, '0')}/${charge.expiry_year}`],
    ['Authorization code', charge.auth_code ?? '—'],
    ['AVS result', charge.avs_result_code ?? '—'],
    ['CVV result', charge.cvv_result_code ?? '—'],
    ['Billing', billingSummary(charge.request_json) || '—'],
    ['Order number', orderNumber(charge.request_json) || '—'],
    ['Source', html`<code>${charge.source_id}</code>`],
    ['Created', timestamp(charge.created_at_ms)],
    ['Updated', timestamp(charge.updated_at_ms)],
  ];
  if (charge.error_code !== null) rows.splice(1, 0, ['Error', `${charge.error_code}: ${charge.error_message ?? ''}`]);
  const linked =
    transfers.length === 0
      ? emptyState('No linked transfers', 'Transfers naming this charge in gatewayId, or reconciled with it, appear here.')
      : html`<div class="table-wrap"><table>
        <thead><tr><th scope="col">Transfer</th><th scope="col">State</th><th scope="col" class="num">Amount linked</th><th scope="col">How</th><th scope="col">Linked at</th></tr></thead>
        <tbody>${transfers.map(
          (t) => html`<tr><th scope="row"><a href="/dashboard/transfers/${encodeURIComponent(t.id)}">${t.id}</a></th>
            <td>${badge(stateTone(t.state, -1), stateName(t.state, -1))}</td><td class="num">${money(t.amount_cents)}</td><td>${t.how}</td><td>${timestamp(t.created_at_ms)}</td></tr>`,
        )}</tbody></table></div>`;
  return html`<p><a href="/dashboard/charges">← All charges</a></p>
  ${facts(rows)}
  <h2>Linked transfers</h2>
  ${linked}`;
}
