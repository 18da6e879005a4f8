// The operator's page of reversals of completed payouts
// (flows/transfers/reversals.ts): reported ones with a confirm form (the
// merchant is credited the transfer's amount) and a reject form (a reason is
// required; no money moves); decided ones with who decided and why.
import type { ReversalView } from '../../flows/transfers/reversals.ts';
import type { ReversalState } from '../../domain/transfer-reversals.ts';
import { amount } from '../format.ts';
import { html, type Html } from '../html.ts';
import { badge, csrfField, emptyState } from './components.ts';

export type ReversalsShown = ReversalState | 'all';

const TONES = { reported: 'wait', confirmed: 'ok', rejected: 'bad' } as const;

/** A form's field ids must be unique on the page: merchant and transfer ids together name a reversal. */
function fieldId(r: ReversalView, what: string): string {
  return `${what}-${r.merchant_id}-${r.transfer_id}`.replace(/[^A-Za-z0-9_-]/g, '_');
}

function decisionForms(r: ReversalView, csrf: string): Html {
  const target = html`${csrfField(csrf)}<input type="hidden" name="merchant" value="${r.merchant_id}"><input type="hidden" name="transfer" value="${r.transfer_id}">`;
  return html`<form method="post" action="/dashboard/operator/reversals/confirm" class="filters">
    ${target}
    <div class="field"><label for="${fieldId(r, 'confirm-note')}">Note (optional)<span class="visually-hidden"> for transfer ${r.transfer_id}</span></label>
      <input id="${fieldId(r, 'confirm-note')}" name="reason" maxlength="500"></div>
    <button type="submit" class="button primary">Confirm and credit ${amount(r.amount_cents, 'USD')}<span class="visually-hidden"> for transfer ${r.transfer_id}</span></button>
  </form>
  <form method="post" action="/dashboard/operator/reversals/reject" class="filters">
    ${target}
    <div class="field"><label for="${fieldId(r, 'reject-reason')}">Reason to reject<span class="visually-hidden"> transfer ${r.transfer_id}</span></label>
      <input id="${fieldId(r, 'reject-reason')}" name="reason" required maxlength="500"></div>
    <button type="submit" class="button">Reject<span class="visually-hidden"> reversal of transfer ${r.transfer_id}</span></button>
  </form>`;
}

export function reversalsBody(input: { rows: readonly ReversalView[]; shown: ReversalsShown; csrf: string; message: Html | null }): Html {
  const tabs = (['reported', 'confirmed', 'rejected', 'all'] as const).map(
    (s) =>
      html`<a class="button${s === input.shown ? ' primary' : ''}" href="/dashboard/operator/reversals?state=${s}"${s === input.shown ? html` aria-current="page"` : ''}>${s}</a> `,
  );
  const table =
    input.rows.length === 0
      ? emptyState('No reversals here', 'When a payout network takes back a payout it had completed, the reversal appears here for you to confirm or reject.')
      : html`<div class="table-wrap"><table>
        <caption class="visually-hidden">Reversals of completed payouts, newest report first</caption>
        <thead><tr><th scope="col">Transfer</th><th scope="col">Merchant</th><th scope="col" class="num">Amount</th><th scope="col">Reported</th>
          <th scope="col">Network's reason</th><th scope="col">Status</th></tr></thead>
        <tbody>${input.rows.map(
          (r) => html`<tr><th scope="row"><a href="/dashboard/operator/merchants/${r.merchant_id}/transfers/${r.transfer_id}">${r.transfer_id}</a></th>
            <td><a href="/dashboard/operator/merchants/${r.merchant_id}"><code>${r.merchant_id}</code></a></td>
            <td class="num">${amount(r.amount_cents, 'USD')}</td>
            <td>${r.reported_at} by ${r.reported_by}</td>
            <td>${r.error_code === '' ? '' : html`<code>${r.error_code}</code> `}${r.error_text}</td>
            <td>${badge(TONES[r.state], r.state)}${
              r.state === 'reported'
                ? decisionForms(r, input.csrf)
                : html` ${r.decided_at ?? ''} by ${r.decided_by ?? '?'}${r.note === null ? '' : html`: ${r.note}`}`
            }</td></tr>`,
        )}</tbody></table></div>`;
  return html`${input.message}
  <p class="hint">A payout network sometimes takes back a payout it had completed. The transfer stays final (60) and its status shows the attribute <code>reversed</code>. Confirming credits the merchant the transfer's amount (paid out → available) and sends the <code>transfer.reversed</code> event; rejecting moves no money.</p>
  <nav class="filters" aria-label="Which reversals">${tabs}</nav>${table}`;
}
