// Small building blocks shared by the views: notices, empty states, badges,
// description lists, the CSRF field, the pager and the wire dialect select.
import { WIRE_DIALECTS, type WireDialect } from '../../domain/wire-dialect.ts';
import type { ListPage } from '../../flows/panel/merchant-views.ts';
import { html, type Html } from '../html.ts';

export type Tone = 'ok' | 'bad' | 'wait' | 'busy';

/** A message after an action or about a problem; errors are announced to screen readers at once. */
export function notice(kind: 'info' | 'success' | 'error', text: string | Html): Html {
  const role = kind === 'error' ? 'alert' : 'status';
  return html`<div class="notice notice-${kind}" role="${role}">${text}</div>`;
}

export function emptyState(title: string, text: string | Html): Html {
  return html`<div class="empty"><p class="empty-title">${title}</p><p>${text}</p></div>`;
}

export function badge(tone: Tone, text: string): Html {
  return html`<span class="badge badge-${tone}">${text}</span>`;
}

export function csrfField(token: string): Html {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

export function facts(rows: ReadonlyArray<readonly [string, string | Html | number]>): Html {
  return html`<dl class="facts">${rows.map(([term, value]) => html`<div><dt>${term}</dt><dd>${value}</dd></div>`)}</dl>`;
}

/** "Older" link for keyset pages: rows beyond the page size mean there is more. */
export function pager(basePath: string, query: Record<string, string>, nextBefore: number | null): Html {
  if (nextBefore === null) return html``;
  const params = new URLSearchParams({ ...query, before: String(nextBefore) });
  return html`<nav class="pager" aria-label="Pages"><a class="button" href="${basePath}?${params.toString()}">Older</a></nav>`;
}

/** The link to a list's CSV export, keeping the list's filters. */
export function exportLink(basePath: string, query: Record<string, string>): Html {
  const params = new URLSearchParams(query).toString();
  return html`<p class="export"><a class="button subtle" href="${basePath}/export${params === '' ? '' : `?${params}`}" download>Export CSV</a></p>`;
}

/**
 * Where a merchant's records are shown: its own users under /dashboard, who
 * may act on a charge, or the operator under the merchant's page, read only.
 */
export interface RecordView {
  readonly base: string;
  readonly readOnly: boolean;
}

export const MERCHANT_VIEW: RecordView = { base: '/dashboard', readOnly: false };

/** Where a page of a list is: "Showing 21-40 of 135", with Newer and Older links that keep the filters. */
export function countedPager(basePath: string, query: Record<string, string>, page: ListPage<unknown>): Html {
  if (page.rows.length === 0) return html``;
  const link = (cursor: 'after' | 'before', pk: number, label: string) =>
    html`<a class="button" href="${basePath}?${new URLSearchParams({ ...query, [cursor]: String(pk) }).toString()}">${label}</a>`;
  const count = `Showing ${page.offset + 1}-${page.offset + page.rows.length} of ${page.total}`;
  return html`<nav class="pager" aria-label="Pages"><p class="pager-count">${count}</p>${page.newerAfter === null ? '' : link('after', page.newerAfter, 'Newer')}${
    page.nextBefore === null ? '' : link('before', page.nextBefore, 'Older')
  }</nav>`;
}

/** How each wire dialect is named on the page. */
export const DIALECT_LABELS: Record<WireDialect, string> = { spec: 'Payrail (spec)', acceptblue: 'accept.blue v2' };

/** The options of a wire dialect select, `selected` chosen. */
export function dialectOptions(selected: WireDialect): Html[] {
  return WIRE_DIALECTS.map((d) => html`<option value="${d}"${d === selected ? html` selected` : ''}>${DIALECT_LABELS[d]}</option>`);
}
