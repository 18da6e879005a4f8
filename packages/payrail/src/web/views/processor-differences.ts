// The operator's page of differences found by reconciliation with the card
// processor (flows/operations/processor-reconciliation.ts): open ones with a
// resolve form (a note is required), resolved ones with who resolved them and why.
import type { DifferenceRow } from '../../flows/operations/processor-reconciliation.ts';
import { amount, timestamp } from '../format.ts';
import { html, type Html } from '../html.ts';
import { badge, csrfField, emptyState } from './components.ts';

export type DifferenceShown = 'open' | 'resolved' | 'all';

const KIND_LABELS: Readonly<Record<DifferenceRow['kind'], string>> = {
  unknown_to_payrail: 'Unknown to Payrail',
  missing_at_processor: 'Not settled by the processor',
  amount_mismatch: 'Amount differs',
  kind_mismatch: 'Charge/refund differs',
  state_mismatch: 'Not captured in Payrail',
  batch_total_mismatch: 'Batch total differs',
};

const cents = (value: number | null): string => (value === null ? '—' : amount(value, 'USD'));

function resolveForm(d: DifferenceRow, csrf: string): Html {
  return html`<form method="post" action="/dashboard/operator/processor-differences/${d.id}/resolve" class="filters">
    ${csrfField(csrf)}
    <div class="field"><label for="note-${d.id}">Resolution note<span class="visually-hidden"> for difference ${d.id}</span></label>
      <input id="note-${d.id}" name="note" required maxlength="500"></div>
    <button type="submit" class="button primary">Resolve<span class="visually-hidden"> difference ${d.id}</span></button>
  </form>`;
}

export function processorDifferencesBody(input: { rows: readonly DifferenceRow[]; shown: DifferenceShown; csrf: string; message: Html | null }): Html {
  const tabs = (['open', 'resolved', 'all'] as const).map(
    (s) =>
      html`<a class="button${s === input.shown ? ' primary' : ''}" href="/dashboard/operator/processor-differences?status=${s}"${s === input.shown ? html` aria-current="page"` : ''}>${s}</a> `,
  );
  const table =
    input.rows.length === 0
      ? emptyState('No differences here', 'The daily reconciliation compares the card processor’s settled batches with Payrail’s; what differs appears here.')
      : html`<div class="table-wrap"><table>
        <caption class="visually-hidden">Differences with the card processor, newest first</caption>
        <thead><tr><th scope="col">#</th><th scope="col">Day</th><th scope="col">Kind</th><th scope="col">Detail</th>
          <th scope="col" class="num">Payrail</th><th scope="col" class="num">Processor</th><th scope="col">Status</th></tr></thead>
        <tbody>${input.rows.map(
          (d) => html`<tr><th scope="row">${d.id}</th><td>${d.day}</td><td>${KIND_LABELS[d.kind]}</td>
            <td>${d.detail}${d.merchant_id === null ? '' : html` (<a href="/dashboard/operator/merchants/${d.merchant_id}"><code>${d.merchant_id}</code></a>)`}</td>
            <td class="num">${cents(d.payrail_cents)}</td><td class="num">${cents(d.processor_cents)}</td>
            <td>${
              d.resolved_at_ms === null
                ? html`${badge('bad', 'open')}${resolveForm(d, input.csrf)}`
                : html`${badge('ok', 'resolved')} ${timestamp(d.resolved_at_ms)} by ${d.resolved_by ?? '?'}: ${d.resolution_note ?? ''}`
            }</td></tr>`,
        )}</tbody></table></div>`;
  return html`${input.message}
  <p class="hint">Each day (from 02:00 UTC) the card processor’s settled batches of the day before are compared with the transactions Payrail settled. A difference stays open until you resolve it with a note saying what you found and did; resolving changes no payment.</p>
  <nav class="filters" aria-label="Which differences">${tabs}</nav>${table}`;
}
