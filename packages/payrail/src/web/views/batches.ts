// The operator's settlement batches page (docs/api-decisions.md section 10):
// every merchant's batches, newest first, with their totals.
import type { BatchRow } from '../../flows/payin/batches.ts';
import { amount, timestamp } from '../format.ts';
import { html, type Html } from '../html.ts';
import { badge, emptyState } from './components.ts';

export function batchListBody(rows: readonly BatchRow[], page: { offset: number; more: boolean }): Html {
  const table =
    rows.length === 0
      ? emptyState('No batches yet', 'Captured card transactions join their merchant’s open batch; batches close daily.')
      : html`<div class="table-wrap"><table>
        <caption class="visually-hidden">Settlement batches, newest first</caption>
        <thead><tr><th scope="col">Batch</th><th scope="col">Merchant</th><th scope="col">Status</th><th scope="col">Opened</th><th scope="col">Closed</th>
          <th scope="col" class="num">Sales</th><th scope="col" class="num">Refunds</th><th scope="col" class="num">Net (USD)</th></tr></thead>
        <tbody>${rows.map(
          (b) => html`<tr><th scope="row">${b.id}</th><td><a href="/dashboard/operator/merchants/${b.merchant_id}"><code>${b.merchant_id}</code></a></td>
            <td>${b.closed_at_ms === null ? badge('wait', 'open') : badge('ok', 'closed')}</td>
            <td>${timestamp(b.opened_at_ms)}</td><td>${b.closed_at_ms === null ? '—' : timestamp(b.closed_at_ms)}</td>
            <td class="num">${b.sales_count} · ${amount(b.sales_cents, 'USD')}</td><td class="num">${b.refunds_count} · ${amount(b.refunds_cents, 'USD')}</td>
            <td class="num">${amount(b.sales_cents - b.refunds_cents, 'USD')}</td></tr>`,
        )}</tbody></table></div>`;
  const more = page.more
    ? html`<nav class="pager" aria-label="Pages"><a class="button" href="/dashboard/operator/batches?offset=${page.offset + rows.length}">Older</a></nav>`
    : html``;
  return html`<p class="hint">Batches close daily at the configured time (PAYRAIL_BATCH_CLOSE_UTC); their transactions become settled.</p>${table}${more}`;
}
