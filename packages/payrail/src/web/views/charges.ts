// Charges: the filterable list and the detail page with linked transfers,
// refunds and the lifecycle actions (capture, void, refund; each asks for
// confirmation on a page of its own before anything happens). Checks sit in
// the same list beside cards; a check's page shows its bank account, the
// timeline of its ACH entry and, when returned, the return code and reason.
import { chargeTone, amount, stateName, stateTone, timestamp } from '../format.ts';
import { html, type Html } from '../html.ts';
import { formatCents } from '../../domain/money.ts';
import {
  CHARGE_PAYMENT_TYPES,
  CHARGE_STATUSES,
  chargeStatusOf,
  type ChargeDetail,
  type ChargeListItem,
  type ChargeTransferLink,
  type ListPage,
} from '../../flows/panel/merchant-views.ts';
import type { OfferedCheckAction, PanelChargeAction } from '../../flows/panel/charge-actions.ts';
import { badge, countedPager, csrfField, emptyState, exportLink, facts, MERCHANT_VIEW, notice, type RecordView } from './components.ts';
import { checkDetailSections, paidWith } from './check-details.ts';

export interface ChargeFilterInput {
  readonly status: string;
  readonly paymentType: string;
  readonly from: string;
  readonly to: string;
}

/** How the payment type filter names each type. */
const PAYMENT_TYPE_LABELS: Readonly<Record<(typeof CHARGE_PAYMENT_TYPES)[number], string>> = { card: 'Card', check: 'Check' };

function filterForm(input: ChargeFilterInput, base: string): Html {
  return html`<form method="get" action="${base}/charges" class="filters" role="search" aria-label="Filter charges">
    <div class="field">
      <label for="status">Status</label>
      <select id="status" name="status">
        <option value="">Any</option>
        ${CHARGE_STATUSES.map((s) => html`<option value="${s}"${input.status === s ? html` selected` : ''}>${s}</option>`)}
      </select>
    </div>
    <div class="field">
      <label for="payment_type">Payment type</label>
      <select id="payment_type" name="payment_type">
        <option value="">Any</option>
        ${CHARGE_PAYMENT_TYPES.map((t) => html`<option value="${t}"${input.paymentType === t ? html` selected` : ''}>${PAYMENT_TYPE_LABELS[t]}</option>`)}
      </select>
    </div>
    <div class="field"><label for="from">From (UTC)</label><input id="from" name="from" type="date" value="${input.from}"></div>
    <div class="field"><label for="to">To (UTC, inclusive)</label><input id="to" name="to" type="date" value="${input.to}"></div>
    <button type="submit" class="button">Apply</button>
    <a class="button subtle" href="${base}/charges">Clear</a>
  </form>
  <form method="get" action="${base}/charges/find" class="filters" role="search" aria-label="Find a charge">
    <div class="field"><label for="ref">Reference number</label><input id="ref" name="ref" inputmode="numeric" pattern="[0-9]{1,18}" maxlength="18" required></div>
    <button type="submit" class="button">Open</button>
  </form>`;
}

/** `query` holds the valid filters only (status, payment_type, from, to), as the links keep them. */
export function chargeListBody(query: Record<string, string>, page: ListPage<ChargeListItem>, base = '/dashboard'): Html {
  const rows = page.rows;
  const input: ChargeFilterInput = { status: query.status ?? '', paymentType: query.payment_type ?? '', from: query.from ?? '', to: query.to ?? '' };
  const filtered = Object.keys(query).length > 0;
  const table =
    rows.length === 0
      ? emptyState(
          filtered ? 'No charges match these filters' : 'No charges yet',
          filtered ? 'Try another status, payment type or date range.' : 'Card and check charges and their refunds will appear here.',
        )
      : html`<div class="table-wrap"><table>
        <caption class="visually-hidden">Charges, newest first</caption>
        <thead><tr><th scope="col">Reference</th><th scope="col">Status</th><th scope="col" class="num">Amount</th><th scope="col">Paid with</th><th scope="col" class="num">Linked</th><th scope="col">Created</th></tr></thead>
        <tbody>${rows.map(
          (c) => html`<tr>
            <th scope="row"><a href="${base}/charges/${c.pk}">${c.pk}</a>${c.parent_pk !== null ? html` <span class="hint">refund of ${c.parent_pk}</span>` : c.kind === 'refund' ? html` <span class="hint">credit</span>` : ''}</th>
            <td>${statusBadge(c)}${c.ach_return_code === null ? '' : html` <span class="hint">${c.ach_return_code}</span>`}</td>
            <td class="num">${amount(c.amount_cents, c.currency)}</td>
            <td>${paidWith(c)}</td>
            <td class="num">${amount(c.linked_cents, c.currency)}</td>
            <td>${timestamp(c.created_at_ms)}</td>
          </tr>`,
        )}</tbody>
      </table></div>`;
  return html`${filterForm(input, base)}${exportLink(`${base}/charges`, query)}${table}${countedPager(`${base}/charges`, query, page)}`;
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

/** The status the payin API shows for the transaction (docs/api-decisions.md section 10; a check's from its ACH entry). */
function statusBadge(c: Pick<ChargeListItem, 'payment_type' | 'ach_state' | 'status' | 'stage' | 'op'>): Html {
  const status = chargeStatusOf(c);
  return badge(chargeTone(status), status);
}

/** What a charge's page shows besides the charge: its refunds, the session's CSRF token, a notice, and a check's offered void or refund. */
export interface ChargeLifecycle {
  readonly refunds: readonly ChargeListItem[];
  readonly csrf: string;
  readonly notice: Html | null;
  readonly checkActions: readonly OfferedCheckAction[];
}

export function chargeDetailBody(
  charge: ChargeDetail,
  transfers: readonly ChargeTransferLink[],
  lifecycle: ChargeLifecycle = { refunds: [], csrf: '', notice: null, checkActions: [] },
  view: RecordView = MERCHANT_VIEW,
): Html {
  const base = view.base;
  if (charge.payment_type === 'check') return checkChargeBody(charge, transfers, lifecycle, view);
  const rows: Array<readonly [string, string | Html]> = [
    ['Status', statusBadge(charge)],
    ['Amount', `${amount(charge.amount_cents, charge.currency)}`],
    ...lifecycleFacts(charge, base),
    ['Linked to transfers', `${amount(charge.linked_cents, charge.currency)}`],
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
  // Made for a stored customer, by a saved card or a schedule (docs/api-decisions.md section 15).
  // The operator's read-only view has no customer pages: the number alone.
  if (charge.customer_pk !== null)
    rows.push(['Customer', view.readOnly ? String(charge.customer_pk) : html`<a href="/dashboard/customers/${charge.customer_pk}">${charge.customer_pk}</a>`]);
  if (charge.schedule_pk !== null)
    rows.push([
      'Recurring schedule',
      view.readOnly ? String(charge.schedule_pk) : html`<a href="/dashboard/schedules/${charge.schedule_pk}">${charge.schedule_pk}</a>`,
    ]);
  return html`${lifecycle.notice}<p><a href="${base}/charges">← All charges</a></p>
  ${facts(rows)}
  ${view.readOnly ? '' : actionForms(charge, lifecycle.csrf)}
  ${charge.kind === 'charge' ? refundList(lifecycle.refunds, base) : ''}
  <h2>Linked transfers</h2>
  ${linkedTransfers(transfers, base)}`;
}

function linkedTransfers(transfers: readonly ChargeTransferLink[], base: string): Html {
  return transfers.length === 0
    ? emptyState('No linked transfers', 'Transfers naming this charge in gatewayId, or reconciled with it, appear here.')
    : html`<div class="table-wrap"><table>
        <thead><tr><th scope="col">Transfer</th><th scope="col">State</th><th scope="col" class="num">Amount linked</th><th scope="col">How</th><th scope="col">Linked at</th></tr></thead>
        <tbody>${transfers.map(
          (t) => html`<tr><th scope="row"><a href="${base}/transfers/${encodeURIComponent(t.id)}">${t.id}</a></th>
            <td>${badge(stateTone(t.state, -1), stateName(t.state, -1))}</td><td class="num">${amount(t.amount_cents, 'USD')}</td><td>${t.how}</td><td>${timestamp(t.created_at_ms)}</td></tr>`,
        )}</tbody></table></div>`;
}

function lifecycleFacts(charge: ChargeDetail, base: string): Array<readonly [string, string | Html]> {
  if (charge.kind === 'refund') {
    // An unmatched credit (accept.blue's /transactions/credit) is a refund of no charge.
    if (charge.parent_pk === null) return [['Credit', 'Unmatched: money to a card no charge names']];
    return [['Refund of', html`<a href="${base}/charges/${charge.parent_pk}">${charge.parent_pk}</a>`]];
  }
  const rows: Array<readonly [string, string | Html]> = [];
  if (charge.captured_cents > 0) rows.push(['Captured', `${amount(charge.captured_cents, charge.currency)}`]);
  if (charge.refunded_cents > 0) rows.push(['Refunded', `${amount(charge.refunded_cents, charge.currency)}`]);
  if (charge.settled_at_ms !== null) rows.push(['Settled', timestamp(charge.settled_at_ms)]);
  return rows;
}

/** What can be done with the charge now; each form leads to a confirmation page first. */
function actionForms(charge: ChargeDetail, csrf: string): Html {
  if (charge.kind !== 'charge' || charge.status !== 'approved' || charge.op !== null) return html``;
  const form = (action: PanelChargeAction, label: string, amountCents: number | null) =>
    html`<form method="post" action="/dashboard/charges/${charge.pk}/${action}" class="filters">
      ${csrfField(csrf)}
      ${amountCents === null ? '' : html`<div class="field"><label for="${action}-amount">Amount (USD)</label><input id="${action}-amount" name="amount" inputmode="decimal" value="${formatCents(amountCents)}" required maxlength="16"></div>`}
      <button type="submit" class="button${action === 'capture' ? ' primary' : ' danger'}">${label}</button>
    </form>`;
  const refundable = charge.captured_cents - charge.refunded_cents - charge.linked_cents;
  const forms: Html[] = [];
  if (charge.stage === 'authorized') forms.push(form('capture', 'Capture…', charge.amount_cents), form('void', 'Void…', null));
  if (charge.stage === 'captured' && charge.linked_cents === 0 && charge.void_refused === 0) forms.push(form('void', 'Void…', null));
  if (charge.stage === 'settled' && refundable > 0) forms.push(form('refund', 'Refund…', refundable));
  if (forms.length === 0) return html``;
  return html`<section aria-labelledby="actions-title"><h2 id="actions-title">Actions</h2>${forms}</section>`;
}

/** A check's page: its account, the timeline of its ACH entry and, when returned, the return up front. */
function checkChargeBody(charge: ChargeDetail, transfers: readonly ChargeTransferLink[], lifecycle: ChargeLifecycle, view: RecordView): Html {
  const base = view.base;
  const rows: Array<readonly [string, string | Html]> = [
    ['Status', statusBadge(charge)],
    ['Payment type', 'Check (ACH)'],
    ['Amount', `${amount(charge.amount_cents, charge.currency)}`],
    ...checkLifecycleFacts(charge, base),
    ['Linked to transfers', `${amount(charge.linked_cents, charge.currency)}`],
    ['Order number', orderNumber(charge.request_json) || '—'],
    ['Source', html`<code>${charge.source_id}</code>`],
    ['Created', timestamp(charge.created_at_ms)],
    ['Updated', timestamp(charge.updated_at_ms)],
  ];
  if (charge.error_code !== null) rows.splice(1, 0, ['Error', `${charge.error_code}: ${charge.error_message ?? ''}`]);
  if (charge.customer_pk !== null)
    rows.push(['Customer', view.readOnly ? String(charge.customer_pk) : html`<a href="/dashboard/customers/${charge.customer_pk}">${charge.customer_pk}</a>`]);
  if (charge.schedule_pk !== null)
    rows.push([
      'Recurring schedule',
      view.readOnly ? String(charge.schedule_pk) : html`<a href="/dashboard/schedules/${charge.schedule_pk}">${charge.schedule_pk}</a>`,
    ]);
  const offered = view.readOnly ? [] : lifecycle.checkActions;
  return html`${lifecycle.notice}<p><a href="${base}/charges">← All charges</a></p>
  ${checkDetailSections(charge.check, charge.last4, rows)}
  ${checkActionForms(charge.pk, offered, lifecycle.csrf)}
  ${charge.kind === 'charge' ? refundList(lifecycle.refunds, base) : ''}
  <h2>Linked transfers</h2>
  ${linkedTransfers(transfers, base)}`;
}

/** What a check refunds or how much of it was refunded; its own times are in its timeline (a check is never captured). */
function checkLifecycleFacts(charge: ChargeDetail, base: string): Array<readonly [string, string | Html]> {
  if (charge.kind === 'refund') {
    if (charge.parent_pk === null) return [['Credit', 'Unmatched: money to a bank account no check names']];
    return [['Refund of', html`<a href="${base}/charges/${charge.parent_pk}">${charge.parent_pk}</a>`]];
  }
  return charge.refunded_cents > 0 ? [['Refunded', `${amount(charge.refunded_cents, charge.currency)}`]] : [];
}

/** The void and refund a check's page offers; one the check's state or the panel rules out is shown disabled with the reason. */
function checkActionForms(pk: number, offered: readonly OfferedCheckAction[], csrf: string): Html {
  if (offered.length === 0) return html``;
  const forms = offered.map((o) => {
    const reasonId = `${o.action}-blocked`;
    const disabled = o.blocked !== null;
    return html`<form method="post" action="/dashboard/charges/${pk}/${o.action}" class="filters">
      ${csrfField(csrf)}
      ${o.amountCents === null ? '' : html`<div class="field"><label for="${o.action}-amount">Amount (USD)</label><input id="${o.action}-amount" name="amount" inputmode="decimal" value="${formatCents(o.amountCents)}" required maxlength="16"${disabled ? html` disabled` : ''}></div>`}
      <button type="submit" class="button danger"${disabled ? html` disabled aria-describedby="${reasonId}"` : ''}>${o.action === 'void' ? 'Void…' : 'Refund…'}</button>
      ${disabled ? html`<p class="hint" id="${reasonId}">${o.blocked}</p>` : ''}
    </form>`;
  });
  return html`<section aria-labelledby="actions-title"><h2 id="actions-title">Actions</h2>${forms}</section>`;
}

function refundList(refunds: readonly ChargeListItem[], base: string): Html {
  const table =
    refunds.length === 0
      ? emptyState('No refunds', 'Refunds of this charge appear here once it is settled and refunded.')
      : html`<div class="table-wrap"><table>
        <thead><tr><th scope="col">Refund</th><th scope="col">Status</th><th scope="col" class="num">Amount</th><th scope="col">Created</th></tr></thead>
        <tbody>${refunds.map(
          (r) => html`<tr><th scope="row"><a href="${base}/charges/${r.pk}">${r.pk}</a></th><td>${statusBadge(r)}</td>
            <td class="num">${amount(r.amount_cents, r.currency)}</td><td>${timestamp(r.created_at_ms)}</td></tr>`,
        )}</tbody></table></div>`;
  return html`<h2>Refunds</h2>${table}`;
}

const CONFIRM_TEXT: Readonly<Record<PanelChargeAction, string>> = {
  capture: 'Capture {amount} of charge {ref}? The amount is credited to your balance.',
  void: 'Void charge {ref}? The authorization is cancelled; a captured amount is taken back from your balance.',
  refund: 'Refund {amount} of charge {ref} to the card? The amount is taken from your balance.',
};

/** The confirmation step of an action: nothing has happened yet. */
export function confirmActionBody(input: { pk: number; action: PanelChargeAction; amount: string; currency: string; csrf: string }): Html {
  const text = CONFIRM_TEXT[input.action]
    .replace('{amount}', input.amount === '' ? 'the whole amount' : `${input.amount} ${input.currency}`)
    .replace('{ref}', String(input.pk));
  return html`${notice('info', text)}
  <form method="post" action="/dashboard/charges/${input.pk}/${input.action}" class="filters">
    ${csrfField(input.csrf)}
    <input type="hidden" name="amount" value="${input.amount}">
    <input type="hidden" name="confirm" value="yes">
    <button type="submit" class="button primary">Yes, ${input.action}</button>
    <a class="button subtle" href="/dashboard/charges/${input.pk}">Cancel</a>
  </form>`;
}
