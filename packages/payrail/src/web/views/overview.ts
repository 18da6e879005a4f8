// Merchant overview: balances from the ledger and the 30-day volume chart.
import type { MerchantSummary } from '../../flows/merchants/merchants.ts';
import { volumeChart } from '../chart.ts';
import { amount } from '../format.ts';
import { html, type Html } from '../html.ts';
import { VOLUME_CHART_DAYS, type DailyVolume } from '../../flows/panel/merchant-views.ts';
import { badge } from './components.ts';

function tile(label: string, cents: number, hint: string): Html {
  return html`<div class="tile"><p class="tile-label">${label}</p><p class="tile-value">${amount(cents, 'USD')}</p><p class="tile-hint">${hint}</p></div>`;
}

export function overviewBody(summary: MerchantSummary, days: readonly DailyVolume[]): Html {
  return html`<p class="lede">${summary.name} <code>${summary.merchant_id}</code>
    ${summary.payouts_must_link ? badge('wait', 'Payouts must be linked to card payins') : ''}</p>
  <section aria-labelledby="balances-title">
    <h2 id="balances-title" class="visually-hidden">Balances</h2>
    <div class="tiles">
      ${tile('Balance', summary.balance_cents, 'Prepaid funds')}
      ${tile('Overdraft', summary.overdraft_cents, 'Credit limit below zero')}
      ${tile('Available', summary.available_cents, 'Balance + overdraft')}
      ${tile('In flight', summary.in_flight_cents, 'Transfers not yet final')}
    </div>
  </section>
  <section aria-labelledby="volume-title">
    <h2 id="volume-title">Daily volume, last ${VOLUME_CHART_DAYS} days</h2>
    ${volumeChart(days)}
  </section>`;
}
