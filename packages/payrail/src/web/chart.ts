// The daily volume chart as inline SVG, rendered on the server: grouped bars
// of card payins and transfers per day. It carries a title and description
// for assistive technology, and the same numbers are given as a table below
// it. Only presentation attributes are used, so the page's Content Security
// Policy needs no inline styles.
import { amount, axisNumber, dayLabel } from './format.ts';
import { html, type Html } from './html.ts';
import type { DailyVolume } from '../flows/panel/merchant-views.ts';

const WIDTH = 720;
const HEIGHT = 240;
const PAD_LEFT = 64;
const PAD_RIGHT = 8;
const PAD_TOP = 12;
const PAD_BOTTOM = 28;
const GRID_LINES = 4;

/** The smallest 1, 2 or 5 times a power of ten at or above `cents`, so axis labels are round. */
function niceCeilingCents(cents: number): number {
  if (cents <= 0) return 100;
  let step = 1;
  while (step * 10 <= cents) step *= 10;
  for (const factor of [1, 2, 5, 10]) {
    if (step * factor >= cents) return step * factor;
  }
  return step * 10;
}

/** Axis labels in whole dollars, shortened so they fit the margin: 250, 2.5k, 1.2M. */
function axisLabel(cents: number): string {
  const dollars = Math.round(cents / 100);
  if (dollars >= 1_000_000) return `${trimZeros((dollars / 1_000_000).toFixed(1))}M`;
  if (dollars >= 1_000) return `${trimZeros((dollars / 1_000).toFixed(1))}k`;
  return cents % 100 === 0 ? String(dollars) : axisNumber(cents);
}

function trimZeros(text: string): string {
  return text.replace(/\.0$/, '');
}

export function volumeChart(days: readonly DailyVolume[]): Html {
  const maxCents = niceCeilingCents(Math.max(0, ...days.map((d) => Math.max(d.chargeCents, d.transferCents))));
  const plotWidth = WIDTH - PAD_LEFT - PAD_RIGHT;
  const plotHeight = HEIGHT - PAD_TOP - PAD_BOTTOM;
  const slot = plotWidth / days.length;
  const bar = Math.max(1, (slot - 2) / 2);
  const y = (cents: number) => PAD_TOP + plotHeight - (cents / maxCents) * plotHeight;
  const grid: Html[] = [];
  for (let i = 0; i <= GRID_LINES; i++) {
    const cents = Math.round((maxCents * i) / GRID_LINES);
    const lineY = y(cents).toFixed(1);
    grid.push(html`<line x1="${PAD_LEFT}" x2="${WIDTH - PAD_RIGHT}" y1="${lineY}" y2="${lineY}" class="grid"/>
      <text x="${PAD_LEFT - 6}" y="${lineY}" class="axis" text-anchor="end" dominant-baseline="middle">${axisLabel(cents)}</text>`);
  }
  const bars = days.map((d, i) => {
    const x = PAD_LEFT + i * slot + 1;
    const label = dayLabel(d.day);
    const parts: Html[] = [];
    if (d.chargeCents > 0) {
      parts.push(
        html`<rect x="${x.toFixed(1)}" y="${y(d.chargeCents).toFixed(1)}" width="${bar.toFixed(1)}" height="${(plotHeight + PAD_TOP - y(d.chargeCents)).toFixed(1)}" class="bar-charges"><title>${label}: card payins ${amount(d.chargeCents, 'USD')}</title></rect>`,
      );
    }
    if (d.transferCents > 0) {
      parts.push(
        html`<rect x="${(x + bar).toFixed(1)}" y="${y(d.transferCents).toFixed(1)}" width="${bar.toFixed(1)}" height="${(plotHeight + PAD_TOP - y(d.transferCents)).toFixed(1)}" class="bar-transfers"><title>${label}: transfers ${amount(d.transferCents, 'USD')}</title></rect>`,
      );
    }
    // A date label every week, counted back from today, keeps the axis readable on a phone.
    if ((days.length - 1 - i) % 7 === 0) {
      // Today's label ends at the plot's right edge so it is never cut off.
      const last = i === days.length - 1;
      parts.push(
        html`<text x="${last ? WIDTH - PAD_RIGHT : (x + bar).toFixed(1)}" y="${HEIGHT - 8}" class="axis" text-anchor="${last ? 'end' : 'middle'}">${label.slice(5)}</text>`,
      );
    }
    return parts;
  });
  const first = days[0] === undefined ? '' : dayLabel(days[0].day);
  const last = days.at(-1) === undefined ? '' : dayLabel(days.at(-1)!.day);
  const totalCharges = days.reduce((sum, d) => sum + d.chargeCents, 0);
  const totalTransfers = days.reduce((sum, d) => sum + d.transferCents, 0);
  return html`<figure class="chart">
  <svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="chart-title chart-desc" preserveAspectRatio="xMidYMid meet">
    <title id="chart-title">Daily volume, ${first} to ${last}</title>
    <desc id="chart-desc">Card payins total ${amount(totalCharges, 'USD')} and transfers total ${amount(totalTransfers, 'USD')} over ${days.length} days.</desc>
    ${grid}
    ${bars}
  </svg>
  <figcaption>
    <span class="legend legend-charges">Card payins (approved)</span>
    <span class="legend legend-transfers">Transfers (not failed)</span>
  </figcaption>
  <details>
    <summary>Show the numbers</summary>
    <div class="table-wrap"><table>
      <caption class="visually-hidden">Daily volume in USD</caption>
      <thead><tr><th scope="col">Day (UTC)</th><th scope="col" class="num">Card payins</th><th scope="col" class="num">Transfers</th></tr></thead>
      <tbody>${days.map((d) => html`<tr><th scope="row">${dayLabel(d.day)}</th><td class="num">${amount(d.chargeCents, 'USD')}</td><td class="num">${amount(d.transferCents, 'USD')}</td></tr>`)}</tbody>
    </table></div>
  </details>
</figure>`;
}
