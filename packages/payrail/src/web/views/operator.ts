// Operator pages: merchants (list, create, fund, overdraft, payouts-must-link),
// the reconciliation queue and the ledger verification report.
import type { CreatedMerchant, MerchantSummary } from '../../flows/merchants/merchants.ts';
import type { VerifyReport } from '../../flows/operations/ledger-verify.ts';
import type { MerchantListItem, ReconciliationCandidate, WaitingTransferItem } from '../../flows/panel/operator-views.ts';
import { formatCents } from '../../domain/money.ts';
import { amount, timestamp } from '../format.ts';
import { html, type Html } from '../html.ts';
import { badge, csrfField, dialectOptions, emptyState, facts, notice } from './components.ts';

export function merchantListBody(input: { csrf: string; rows: readonly MerchantListItem[]; query: string; message: Html | null }): Html {
  const table =
    input.rows.length === 0
      ? emptyState(
          input.query === '' ? 'No merchants yet' : 'No merchant matches',
          input.query === '' ? 'Create the first merchant below.' : 'Search by exact id or the start of the name.',
        )
      : html`<div class="table-wrap"><table>
        <caption class="visually-hidden">Merchants, newest first</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col" class="num">Balance</th><th scope="col" class="num">Overdraft</th><th scope="col" class="num">In flight</th><th scope="col">Payouts</th></tr></thead>
        <tbody>${input.rows.map(
          (m) => html`<tr>
            <th scope="row"><a href="/dashboard/operator/merchants/${m.id}">${m.name}</a></th>
            <td><code>${m.id}</code></td>
            <td class="num">${amount(m.balance_cents, 'USD')}</td>
            <td class="num">${amount(-(m.floor_cents ?? 0), 'USD')}</td>
            <td class="num">${amount(m.in_flight_cents, 'USD')}</td>
            <td>${m.payouts_must_link === 1 ? badge('wait', 'must link') : badge('ok', 'free')}</td>
          </tr>`,
        )}</tbody></table></div>`;
  return html`${input.message}
  <form method="get" action="/dashboard/operator/merchants" class="filters" role="search" aria-label="Find merchants">
    <div class="field"><label for="q">Merchant id or name</label><input id="q" name="q" maxlength="200" value="${input.query}"></div>
    <button type="submit" class="button">Search</button>
  </form>
  ${table}
  <section aria-labelledby="create-title" class="card">
    <h2 id="create-title">Create a merchant</h2>
    <form method="post" action="/dashboard/operator/merchants" class="filters">
      ${csrfField(input.csrf)}
      <div class="field"><label for="merchant-name">Name</label><input id="merchant-name" name="name" required maxlength="200"></div>
      <div class="field"><label for="merchant-dialect">Wire dialect of its first source</label><select id="merchant-dialect" name="dialect">${dialectOptions('spec')}</select></div>
      <button type="submit" class="button primary">Create merchant</button>
    </form>
  </section>`;
}

function secretLine(id: string, label: string, value: string): Html {
  return html`<div class="secret"><label for="${id}">${label}</label>
    <div class="secret-row"><input id="${id}" class="mono" readonly value="${value}" data-secret><button type="button" class="button subtle" data-copy="${id}" hidden>Copy</button></div></div>`;
}

export function merchantCreatedBody(created: CreatedMerchant): Html {
  return html`${notice('success', `Merchant ${created.merchant_id} created.`)}
  <div class="card secrets">
    <p><strong>Hand these to the merchant now.</strong> They are shown only once.</p>
    ${secretLine('merchant-id', 'Merchant id', created.merchant_id)}
    ${secretLine('transfer-api-key', 'Transfer API key', created.transfer_api_key)}
    ${secretLine('source-id', 'Payin source id', created.source.id)}
    <p>Wire dialect of the source: <code>${created.source.dialect}</code>.</p>
    ${secretLine('api-key', 'Source API key', created.source.api_key)}
    ${secretLine('pin', 'Source PIN', created.source.pin)}
    ${secretLine('tokenization-token', 'Tokenization token', created.source.tokenization_token)}
  </div>
  <p><a class="button" href="/dashboard/operator/merchants/${created.merchant_id}">Open the merchant</a></p>`;
}

export function merchantDetailBody(input: {
  csrf: string;
  summary: MerchantSummary;
  message: Html | null;
  values?: { fund?: string; overdraft?: string };
}): Html {
  const s = input.summary;
  const base = `/dashboard/operator/merchants/${s.merchant_id}`;
  return html`${input.message}
  <p><a href="/dashboard/operator/merchants">← All merchants</a></p>
  <nav class="tabs" aria-label="Records of this merchant"><ul>
    <li><a href="${base}/charges">Charges</a></li>
    <li><a href="${base}/transfers">Transfers</a></li>
  </ul></nav>
  ${facts([
    ['Id', html`<code>${s.merchant_id}</code>`],
    ['Balance', `${amount(s.balance_cents, 'USD')}`],
    ['Overdraft', `${amount(s.overdraft_cents, 'USD')}`],
    ['Available', `${amount(s.available_cents, 'USD')}`],
    ['In flight', `${amount(s.in_flight_cents, 'USD')}`],
    ['Paid out', `${amount(s.paid_out_cents, 'USD')}`],
    ['Card payins', `${amount(s.card_payins_cents, 'USD')}`],
    ['Payouts must link', s.payouts_must_link ? badge('wait', 'on') : badge('ok', 'off')],
    [
      'Sources',
      s.sources.length === 0
        ? '—'
        : html`${s.sources.map((src) => html`<code>${src.id}</code> ${src.name} (dialect <code>${src.dialect}</code>)${src.revoked ? ' (revoked)' : ''}<br>`)}`,
    ],
  ])}
  <div class="forms">
    <form method="post" action="${base}/fund" class="card stack">
      <h2>Fund</h2>
      ${csrfField(input.csrf)}
      <div class="field"><label for="fund-amount">Amount (USD)</label><input id="fund-amount" name="amount" inputmode="decimal" pattern="[0-9]{1,12}(\\.[0-9]{1,2})?" required placeholder="250.00" value="${input.values?.fund ?? ''}"></div>
      <button type="submit" class="button primary">Add funds</button>
    </form>
    <form method="post" action="${base}/overdraft" class="card stack">
      <h2>Overdraft</h2>
      ${csrfField(input.csrf)}
      <div class="field"><label for="overdraft-amount">Limit (USD, 0 for none)</label><input id="overdraft-amount" name="amount" inputmode="decimal" pattern="[0-9]{1,12}(\\.[0-9]{1,2})?" required value="${input.values?.overdraft ?? formatCents(s.overdraft_cents)}"></div>
      <button type="submit" class="button">Set overdraft</button>
    </form>
    <form method="post" action="${base}/link-required" class="card stack">
      <h2>Payouts must link</h2>
      ${csrfField(input.csrf)}
      <p class="hint">When on, a transfer without gatewayId waits until it is reconciled with a card payin.</p>
      <input type="hidden" name="on" value="${s.payouts_must_link ? '0' : '1'}">
      <button type="submit" class="button">${s.payouts_must_link ? 'Turn off' : 'Turn on'}</button>
    </form>
  </div>`;
}

export function reconciliationBody(input: {
  csrf: string;
  transfers: readonly WaitingTransferItem[];
  candidates: readonly ReconciliationCandidate[];
  message: Html | null;
}): Html {
  if (input.transfers.length === 0) {
    return html`${input.message}${emptyState('Nothing waits for reconciliation', 'Transfers of merchants whose payouts must be linked, sent without gatewayId and not matched automatically, appear here.')}`;
  }
  return html`${input.message}
  <p class="hint">Oldest first. Link a transfer to an approved card payin of the same merchant whose unlinked amount covers it, or cancel it: the amount returns to the merchant.</p>
  <ul class="queue">${input.transfers.map((t) => {
    const fitting = input.candidates.filter((c) => c.merchant_id === t.merchant_id && c.amount_cents - c.linked_cents >= t.amount_cents);
    const listId = `charges-${t.pk}`;
    const target = html`<input type="hidden" name="merchant" value="${t.merchant_id}"><input type="hidden" name="transfer" value="${t.id}">`;
    return html`<li class="card">
      <h2 class="queue-title">Transfer <code>${t.id}</code> · ${amount(t.amount_cents, 'USD')}</h2>
      <p class="muted">${t.merchant_name} (<code>${t.merchant_id}</code>) → ${t.receiver_phone}, created ${timestamp(t.created_at_ms)}</p>
      <div class="queue-actions">
        <form method="post" action="/dashboard/operator/reconciliation/link" class="filters">
          ${csrfField(input.csrf)}${target}
          <div class="field"><label for="charge-${t.pk}">Charge reference number</label>
            <input id="charge-${t.pk}" name="charge" inputmode="numeric" pattern="[0-9]{1,18}" required list="${listId}" aria-describedby="hint-${t.pk}">
            <datalist id="${listId}">${fitting.map((c) => html`<option value="${c.pk}">${amount(c.amount_cents - c.linked_cents, 'USD')} unlinked, ${timestamp(c.created_at_ms)}</option>`)}</datalist>
            <p id="hint-${t.pk}" class="hint">${fitting.length === 0 ? 'No approved charge of this merchant has enough unlinked amount.' : html`Fitting charges: ${fitting.slice(0, 5).map((c, i) => html`${i > 0 ? ', ' : ''}<code>${c.pk}</code> (${amount(c.amount_cents - c.linked_cents, 'USD')})`)}`}</p>
          </div>
          <button type="submit" class="button primary">Link<span class="visually-hidden"> transfer ${t.id}</span></button>
        </form>
        <form method="post" action="/dashboard/operator/reconciliation/cancel" data-confirm="Cancel transfer ${t.id}? It ends in state 80 and ${amount(t.amount_cents, 'USD')} returns to the merchant.">
          ${csrfField(input.csrf)}${target}
          <button type="submit" class="button danger">Cancel<span class="visually-hidden"> transfer ${t.id}</span></button>
        </form>
      </div>
    </li>`;
  })}</ul>`;
}

export function ledgerBody(report: VerifyReport, checkedAtMs: number): Html {
  return html`${
    report.ok
      ? notice(
          'success',
          html`<strong>Ledger OK.</strong> Every cached balance equals its postings, balances sum to zero, and the ledger agrees with transfers and charges.`,
        )
      : notice('error', html`<strong>Ledger mismatch.</strong> ${report.problems.length} problem${report.problems.length === 1 ? '' : 's'} found.`)
  }
  ${facts([
    ['Checked', timestamp(checkedAtMs)],
    ['Accounts', String(report.accounts)],
    ['Postings', String(report.postings)],
  ])}
  ${
    report.openProcessorDifferences === 0
      ? ''
      : notice(
          'info',
          html`${report.openProcessorDifferences} open difference(s) with the card processor’s settlements. They are not a ledger imbalance: <a href="/dashboard/operator/processor-differences">review them</a>.`,
        )
  }
  ${report.problems.length === 0 ? '' : html`<h2>Problems</h2><ul class="problems">${report.problems.map((p) => html`<li>${p}</li>`)}</ul>`}
  <p><a class="button" href="/dashboard/operator/ledger">Verify again</a></p>`;
}
