// Stored customers in the panel (docs/api-decisions.md section 15): the
// customer list, a customer with its saved cards, schedules and latest
// transactions, and a schedule with its run history and the pause/resume
// button. Card data shown is what the API shows: brand, last 4, expiry.
import type { CustomerPanelView, CustomerView } from '../../flows/vault/customers.ts';
import type { ScheduleRunView, ScheduleView } from '../../flows/vault/schedules.ts';
import { parseDollarNumber } from '../../domain/money.ts';
import { chargeTone, amount, timestamp } from '../format.ts';
import { html, type Html } from '../html.ts';
import { badge, csrfField, emptyState, facts } from './components.ts';

/** A schedule's amount (wire dollars, at most 2 decimals) in cents, for amount(). */
function centsOf(amount: number): number {
  const parsed = parseDollarNumber(amount);
  return parsed.ok ? parsed.cents : 0;
}

function scheduleBadge(schedule: ScheduleView): Html {
  if (!schedule.active) return badge(schedule.status === 'failed' ? 'bad' : 'wait', schedule.status === 'active' ? 'paused' : schedule.status);
  return badge(schedule.status === 'active' ? 'ok' : 'bad', schedule.status);
}

export function customerListBody(customers: readonly CustomerView[], page: { offset: number; more: boolean }): Html {
  if (customers.length === 0 && page.offset === 0) {
    return emptyState('No customers yet', 'Customers saved through the API (POST /api/v2/customers) appear here with their cards and schedules.');
  }
  const next = page.more
    ? html`<nav class="pager" aria-label="Pages"><a class="button" href="/dashboard/customers?offset=${page.offset + customers.length}">More</a></nav>`
    : html``;
  return html`<div class="table-wrap"><table>
    <caption class="visually-hidden">Customers, oldest first</caption>
    <thead><tr><th scope="col">Id</th><th scope="col">Identifier</th><th scope="col">Customer number</th><th scope="col">E-mail</th><th scope="col">Active</th><th scope="col">Created</th></tr></thead>
    <tbody>${customers.map(
      (c) => html`<tr>
        <th scope="row"><a href="/dashboard/customers/${c.id}">${c.id}</a></th>
        <td>${c.identifier}</td>
        <td>${c.customer_number ?? ''}</td>
        <td>${c.email ?? ''}</td>
        <td>${c.active ? 'yes' : 'no'}</td>
        <td>${timestamp(Date.parse(c.created_at))}</td>
      </tr>`,
    )}</tbody>
  </table></div>${next}`;
}

function scheduleRows(schedules: readonly ScheduleView[]): Html {
  if (schedules.length === 0) return emptyState('No schedules', 'Recurring schedules of this customer appear here.');
  return html`<div class="table-wrap"><table>
    <caption class="visually-hidden">Recurring schedules</caption>
    <thead><tr><th scope="col">Schedule</th><th scope="col">Title</th><th scope="col" class="num">Amount</th><th scope="col">Frequency</th><th scope="col">Next run</th><th scope="col" class="num">Runs left</th><th scope="col">Status</th></tr></thead>
    <tbody>${schedules.map(
      (s) => html`<tr>
        <th scope="row"><a href="/dashboard/schedules/${s.id}">${s.id}</a></th>
        <td>${s.title}</td>
        <td class="num">${amount(centsOf(s.amount), 'USD')}</td>
        <td>${s.frequency}</td>
        <td>${s.next_run_date}</td>
        <td class="num">${s.num_left === 0 ? 'unlimited' : String(s.num_left)}</td>
        <td>${scheduleBadge(s)}</td>
      </tr>`,
    )}</tbody>
  </table></div>`;
}

export function customerDetailBody(view: CustomerPanelView): Html {
  const c = view.customer;
  const cards =
    view.methods.length === 0
      ? emptyState('No saved cards', 'Cards saved for this customer (POST /api/v2/customers/:id/payment-methods) appear here.')
      : html`<div class="table-wrap"><table>
        <caption class="visually-hidden">Saved cards</caption>
        <thead><tr><th scope="col">Payment method</th><th scope="col">Card</th><th scope="col">Expiry</th><th scope="col">Name</th><th scope="col">Saved</th></tr></thead>
        <tbody>${view.methods.map(
          (m) => html`<tr>
            <th scope="row">pm-${m.id}</th>
            <td>${m.payment_method_type === 'check' ? `Check (${m.account_type ?? ''})` : m.card_type} ···· ${m.last4}</td>
            <td>${m.payment_method_type === 'check' ? '' : `${String(m.expiry_month).padStart(2, '0')}/${m.expiry_year}`}</td>
            <td>${m.name ?? ''}</td>
            <td>${timestamp(Date.parse(m.created_at))}</td>
          </tr>`,
        )}</tbody>
      </table></div>`;
  const transactions =
    view.transactions.length === 0
      ? emptyState('No transactions', 'Charges of this customer (by saved card or schedule) appear here.')
      : html`<div class="table-wrap"><table>
        <caption class="visually-hidden">Latest transactions</caption>
        <thead><tr><th scope="col">Reference</th><th scope="col">Status</th><th scope="col" class="num">Amount</th><th scope="col">Card</th><th scope="col">Schedule</th><th scope="col">Created</th></tr></thead>
        <tbody>${view.transactions.map(
          (t) => html`<tr>
            <th scope="row"><a href="/dashboard/charges/${t.reference_number}">${t.reference_number}</a></th>
            <td>${badge(chargeTone(t.status), t.status)}</td>
            <td class="num">${amount(t.amount_cents, 'USD')}</td>
            <td>${t.card}</td>
            <td>${t.schedule_id === null ? '' : html`<a href="/dashboard/schedules/${t.schedule_id}">${t.schedule_id}</a>`}</td>
            <td>${timestamp(t.created_at_ms)}</td>
          </tr>`,
        )}</tbody>
      </table></div>`;
  return html`${facts([
    ['Identifier', c.identifier],
    ['Customer number', c.customer_number ?? ''],
    ['E-mail', c.email ?? ''],
    ['Name', `${c.first_name ?? ''} ${c.last_name ?? ''}`.trim()],
    ['Phone', c.phone ?? ''],
    ['Active', c.active ? 'yes' : 'no'],
    ['Created', timestamp(Date.parse(c.created_at))],
  ])}
  <h2>Saved cards</h2>${cards}
  <h2>Recurring schedules</h2>${scheduleRows(view.schedules)}
  <h2>Latest transactions</h2>${transactions}
  <p><a href="/dashboard/customers">All customers</a></p>`;
}

export function scheduleDetailBody(schedule: ScheduleView, runs: readonly ScheduleRunView[], csrf: string, notice: Html | null): Html {
  const action = schedule.active
    ? html`<form method="post" action="/dashboard/schedules/${schedule.id}/pause" class="inline">${csrfField(csrf)}<button type="submit" class="button">Pause schedule</button></form>`
    : html`<form method="post" action="/dashboard/schedules/${schedule.id}/resume" class="inline">${csrfField(csrf)}<button type="submit" class="button">Resume schedule</button></form>`;
  const history =
    runs.length === 0
      ? emptyState('No runs yet', `The first run is on ${schedule.next_run_date} (UTC).`)
      : html`<div class="table-wrap"><table>
        <caption class="visually-hidden">Run history, newest first</caption>
        <thead><tr><th scope="col">Run date</th><th scope="col">Reference</th><th scope="col">Outcome</th><th scope="col" class="num">Amount</th><th scope="col">Ran at</th></tr></thead>
        <tbody>${runs.map(
          (r) => html`<tr>
            <th scope="row">${r.run_date}</th>
            <td><a href="/dashboard/charges/${r.reference_number}">${r.reference_number}</a></td>
            <td>${badge(chargeTone(r.charge_status), r.charge_status)}</td>
            <td class="num">${amount(r.amount_cents, 'USD')}</td>
            <td>${timestamp(r.created_at_ms)}</td>
          </tr>`,
        )}</tbody>
      </table></div>`;
  return html`${notice ?? html``}${facts([
    ['Title', schedule.title],
    ['Customer', html`<a href="/dashboard/customers/${schedule.customer_id}">${schedule.customer_id}</a>`],
    ['Amount', `${amount(centsOf(schedule.amount), 'USD')}`],
    ['Frequency', schedule.frequency],
    ['Next run', `${schedule.next_run_date} (UTC)`],
    ['Runs left', schedule.num_left === 0 ? 'unlimited' : String(schedule.num_left)],
    ['Card', `pm-${schedule.payment_method_id}`],
    ['Status', scheduleBadge(schedule)],
  ])}
  <div class="actions">${action}</div>
  <h2>Run history</h2>${history}`;
}
