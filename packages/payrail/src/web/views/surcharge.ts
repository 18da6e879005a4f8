// The merchant's surcharge settings (domain/surcharge.ts): what each card or
// check charge adds, shown to every role and changed by an admin.
import type { PaymentType, SurchargeSetting, SurchargeSettings } from '../../domain/surcharge.ts';
import { formatCents } from '../../domain/money.ts';
import { html, type Html } from '../html.ts';
import { csrfField, facts } from './components.ts';

const LABELS: Readonly<Record<PaymentType, string>> = { card: 'Card charges', check: 'Check charges' };

function valueText(setting: SurchargeSetting): string {
  if (setting.kind === 'percent') return String(setting.thousandthsOfPercent / 1000);
  if (setting.kind === 'currency') return formatCents(setting.amountCents);
  return '';
}

function describe(setting: SurchargeSetting): string {
  if (setting.kind === 'percent') return `${setting.thousandthsOfPercent / 1000} % of the amount`;
  if (setting.kind === 'currency') return `${formatCents(setting.amountCents)} USD per charge`;
  return 'none';
}

function fieldset(type: PaymentType, setting: SurchargeSetting): Html {
  const option = (value: SurchargeSetting['kind'], label: string) =>
    html`<option value="${value}"${setting.kind === value ? html` selected` : ''}>${label}</option>`;
  return html`<fieldset>
    <legend>${LABELS[type]}</legend>
    <div class="field"><label for="${type}-type">Kind</label>
      <select id="${type}-type" name="${type}_type">${option('none', 'None')}${option('percent', 'Percent of the amount')}${option('currency', 'Fixed amount (USD)')}</select></div>
    <div class="field"><label for="${type}-value">Value</label>
      <input id="${type}-value" name="${type}_value" inputmode="decimal" maxlength="12" value="${valueText(setting)}" placeholder="3.5 or 1.00"></div>
  </fieldset>`;
}

export function surchargeBody(input: { csrf: string; settings: SurchargeSettings; mayEdit: boolean; notice: Html | null }): Html {
  const { settings } = input;
  return html`${input.notice}
  <section aria-labelledby="surcharge-title">
    <h2 id="surcharge-title">Surcharge</h2>
    <p class="hint">A surcharge is added to every charge of its payment type: a charge of 100.00 with a 3.5 % card surcharge charges the card 103.50.
      Percentages are rounded half up to the cent. Shop plugins read these settings from GET /api/v2/surcharge.</p>
    ${facts([
      [LABELS.card, describe(settings.card)],
      [LABELS.check, describe(settings.check)],
    ])}
    ${
      input.mayEdit
        ? html`<form method="post" action="/dashboard/surcharge" class="filters">
      ${csrfField(input.csrf)}
      ${fieldset('card', settings.card)}
      ${fieldset('check', settings.check)}
      <button type="submit" class="button primary">Save surcharge</button>
    </form>`
        : html`<p class="muted">Only an admin of your merchant can change the surcharge.</p>`
    }
  </section>`;
}
