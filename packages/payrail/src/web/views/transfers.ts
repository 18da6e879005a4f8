// Transfers: list by state, find by id, detail with state history and the
// linked charge.
import { isWaitingState } from '../../domain/transfer-states.ts';
import { amount, stateName, stateTone, timestamp } from '../format.ts';
import { html, type Html } from '../html.ts';
import type {
  ListPage,
  TransferChargeLink,
  TransferDetail,
  TransferEventItem,
  TransferListItem,
  TransferStateFilter,
} from '../../flows/panel/merchant-views.ts';
import type { Corridor } from '../../domain/corridors.ts';
import { badge, countedPager, emptyState, exportLink, facts, notice } from './components.ts';

const FILTER_LABELS: Record<TransferStateFilter, string> = {
  all: 'All',
  '0': 'New (0)',
  '40': 'Processing (40)',
  '60': 'Success (60)',
  '80': 'Error (80)',
  waiting: 'Waiting (0/9)',
};

function stateBadge(t: { state: number; substate: number; waiting_for?: string | null }): Html {
  return badge(stateTone(t.state, t.substate), stateName(t.state, t.substate, t.waiting_for ?? null));
}

export function findTransferForm(value: string, base = '/dashboard'): Html {
  return html`<form method="get" action="${base}/transfers/find" class="filters" role="search" aria-label="Find a transfer">
    <div class="field"><label for="transfer-id">Transfer id</label><input id="transfer-id" name="id" inputmode="numeric" maxlength="64" required value="${value}"></div>
    <button type="submit" class="button">Find</button>
  </form>`;
}

/** The date and corridor filters; the state is kept by a hidden field, the tabs keep these. */
function filterForm(query: Record<string, string>, corridors: readonly Corridor[], base: string): Html {
  return html`<form method="get" action="${base}/transfers" class="filters" role="search" aria-label="Filter transfers">
    ${query.state === undefined ? '' : html`<input type="hidden" name="state" value="${query.state}">`}
    <div class="field"><label for="from">Created from (UTC)</label><input id="from" name="from" type="date" value="${query.from ?? ''}"></div>
    <div class="field"><label for="to">Created to (UTC, inclusive)</label><input id="to" name="to" type="date" value="${query.to ?? ''}"></div>
    <div class="field">
      <label for="service">Corridor</label>
      <select id="service" name="service">
        <option value="">Any</option>
        ${corridors.map(
          (c) => html`<option value="${c.service}"${query.service === c.service ? html` selected` : ''}>${c.service} · ${c.country} · ${c.currency}</option>`,
        )}
      </select>
    </div>
    <button type="submit" class="button">Apply</button>
    <a class="button subtle" href="${base}/transfers">Clear</a>
  </form>`;
}

/** `query` holds the valid filters only (state, from, to, service), as the links keep them. */
export function transferListBody(
  query: Record<string, string>,
  corridors: readonly Corridor[],
  page: ListPage<TransferListItem>,
  notFoundId: string | null,
  base = '/dashboard',
): Html {
  const rows = page.rows;
  const state = (query.state ?? 'all') as TransferStateFilter;
  const tabLink = (key: TransferStateFilter) => {
    const params = new URLSearchParams({ ...query, state: key });
    if (key === 'all') params.delete('state');
    const text = params.toString();
    return `${base}/transfers${text === '' ? '' : `?${text}`}`;
  };
  const filtered = Object.keys(query).some((k) => k !== 'state');
  const tabs = html`<nav class="tabs" aria-label="Filter by state"><ul>${(Object.keys(FILTER_LABELS) as TransferStateFilter[]).map(
    (key) => html`<li><a href="${tabLink(key)}"${key === state ? html` aria-current="true"` : ''}>${FILTER_LABELS[key]}</a></li>`,
  )}</ul></nav>`;
  const table =
    rows.length === 0
      ? filtered
        ? emptyState('No transfers match these filters', 'Try other dates or another corridor.')
        : emptyState(
            state === 'all' ? 'No transfers yet' : 'No transfers in this state',
            state === 'all' ? 'Transfers executed with your transfer API key appear here.' : 'Choose another state above.',
          )
      : html`<div class="table-wrap"><table>
        <caption class="visually-hidden">Transfers, newest first</caption>
        <thead><tr><th scope="col">Id</th><th scope="col">State</th><th scope="col" class="num">Amount</th><th scope="col">Receiver</th><th scope="col">Corridor</th><th scope="col">Created</th></tr></thead>
        <tbody>${rows.map(
          (t) => html`<tr>
            <th scope="row"><a href="${base}/transfers/${encodeURIComponent(t.id)}">${t.id}</a></th>
            <td>${stateBadge(t)}</td>
            <td class="num">${amount(t.amount_cents, 'USD')}</td>
            <td>${t.receiver_phone}</td>
            <td>${t.service} · ${t.receiver_currency}</td>
            <td>${timestamp(t.created_at_ms)}</td>
          </tr>`,
        )}</tbody>
      </table></div>`;
  return html`${notFoundId === null ? '' : notice('error', html`No transfer with id <code>${notFoundId}</code> was found for your merchant.`)}
  ${findTransferForm(notFoundId ?? '', base)}
  ${filterForm(query, corridors, base)}
  ${tabs}
  ${exportLink(`${base}/transfers`, query)}
  ${table}
  ${countedPager(`${base}/transfers`, query, page)}`;
}

function attributes(json: string): Array<{ name: string; value: string }> {
  try {
    const parsed = JSON.parse(json) as unknown;
    if (!Array.isArray(parsed)) return [];
    return parsed
      .filter((a): a is { name: string; value: string } => typeof a === 'object' && a !== null && typeof a.name === 'string' && typeof a.value === 'string')
      .slice(0, 50);
  } catch {
    return [];
  }
}

/** `minorUnits` is the ISO 4217 exponent of the receiver currency (KES 2, UGX 0). */
export function transferDetailBody(
  transfer: TransferDetail,
  events: readonly TransferEventItem[],
  link: TransferChargeLink | null,
  minorUnits: number,
  base = '/dashboard',
): Html {
  const rows: Array<readonly [string, string | Html]> = [
    [
      'State',
      html`${stateBadge(transfer)} <span class="muted">state ${transfer.state}, substate ${transfer.substate}, ${transfer.final === 1 ? 'final' : 'may still change'}</span>`,
    ],
    ['Amount', `${amount(transfer.amount_cents, 'USD')}`],
    ['Receiver gets', `${amount(transfer.received_minor, transfer.receiver_currency, minorUnits)} at ${transfer.fx_rate}`],
    ['Receiver', transfer.receiver_phone],
    ['Sender', transfer.sender_phone],
    ['Corridor', `${transfer.service} (${transfer.receiver_country}, ${transfer.receiver_currency})`],
    // The network's references under the names GET /api/status/:id and the execute answer give them.
    ['payment_id', transfer.payment_id ?? '—'],
    ['trans', transfer.trans ?? '—'],
    ['Created', timestamp(transfer.created_at_ms)],
    ['Updated', timestamp(transfer.updated_at_ms)],
  ];
  if (transfer.provider_error_code !== null || transfer.provider_error_text !== null) {
    rows.splice(1, 0, ['Provider error', `${transfer.provider_error_code ?? ''} ${transfer.provider_error_text ?? ''}`.trim()]);
  }
  if (transfer.invitation_expires_at_ms !== null && transfer.final === 0) rows.push(['Invitation expires', timestamp(transfer.invitation_expires_at_ms)]);
  // The payout stays final; a reversal the network reported shows beside it (flows/transfers/reversals.ts).
  if (transfer.reversal === 'reported') rows.splice(1, 0, ['Reversal', 'Reported by the payout network; awaiting the operator']);
  if (transfer.reversal === 'confirmed') rows.splice(1, 0, ['Reversal', 'Confirmed: the amount went back to the available balance']);
  const attrs = attributes(transfer.attributes_json);
  const history =
    events.length === 0
      ? emptyState('No recorded state changes', 'The history starts when the transfer is processed.')
      : html`<ol class="timeline">${events.map(
          (e) => html`<li><span class="timeline-when">${timestamp(e.at_ms)}</span> ${badge(stateTone(e.state, e.substate), stateName(e.state, e.substate))}
            <span class="muted">${e.state}/${e.substate}</span>${e.note === null ? '' : html` <span>${e.note}</span>`}</li>`,
        )}</ol>`;
  const linked =
    link === null
      ? emptyState(
          'Not linked to a card payin',
          isWaitingState(transfer.state, transfer.substate) ? 'This transfer is waiting; it proceeds once it is linked.' : 'This transfer named no gatewayId.',
        )
      : facts([
          [
            'Charge',
            html`<a href="${base}/charges/${link.charge_pk}">${link.charge_pk}</a> ${badge(link.charge_status === 'approved' ? 'ok' : 'bad', link.charge_status)}`,
          ],
          ['Charge amount', `${amount(link.charge_amount_cents, 'USD')}`],
          ['Amount linked', `${amount(link.amount_cents, 'USD')}`],
          ['Linked', `${link.how}, ${timestamp(link.created_at_ms)}`],
        ]);
  return html`<p><a href="${base}/transfers">← All transfers</a></p>
  ${facts(rows)}
  <h2>State history</h2>
  ${history}
  <h2>Linked charge</h2>
  ${linked}
  <h2>Attributes</h2>
  ${
    attrs.length === 0
      ? emptyState('No attributes', 'This transfer was sent without corridor attributes.')
      : html`<div class="table-wrap"><table><thead><tr><th scope="col">Name</th><th scope="col">Value</th></tr></thead>
        <tbody>${attrs.map((a) => html`<tr><th scope="row">${a.name}</th><td>${a.value}</td></tr>`)}</tbody></table></div>`
  }`;
}
