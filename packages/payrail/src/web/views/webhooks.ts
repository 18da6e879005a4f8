// Webhook endpoints in the control panel (docs/api-decisions.md section 11):
// each endpoint with its recent deliveries (status, answer code, latency,
// next retry) and a re-send button, a flag on endpoints Payrail disabled,
// the form to add one, and the one-time display of a signing secret.
import type { DeliveryView } from '../../flows/webhooks/deliveries.ts';
import type { AcceptBlueFacts, EndpointView, EndpointWithSecret } from '../../flows/webhooks/endpoints.ts';
import { timestamp } from '../format.ts';
import { html, type Html } from '../html.ts';
import { badge, csrfField, emptyState, notice } from './components.ts';

const ALL_TYPES = 15;

function deliveryStatus(d: DeliveryView): Html {
  if (d.status === 'delivered') return badge('ok', 'delivered');
  if (d.status === 'failed') return badge('bad', 'failed');
  return badge('wait', d.attempts === 0 ? 'queued' : 'retrying');
}

function deliveriesTable(csrf: string, deliveries: readonly DeliveryView[]): Html {
  if (deliveries.length === 0) return html`<p class="muted">No deliveries yet.</p>`;
  return html`<div class="table-wrap"><table>
    <caption class="visually-hidden">Recent deliveries</caption>
    <thead><tr><th scope="col">Event</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Answer</th><th scope="col">Latency</th><th scope="col">Attempts</th><th scope="col">Last attempt</th><th scope="col">Next retry</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${deliveries.map(
      (d) => html`<tr>
        <th scope="row"><code>${d.event_id}</code></th>
        <td>${d.type}</td>
        <td>${deliveryStatus(d)}</td>
        <td>${d.last_status_code === null ? (d.last_error ?? '—') : String(d.last_status_code)}</td>
        <td>${d.last_latency_ms === null ? '—' : `${d.last_latency_ms} ms`}</td>
        <td>${String(d.attempts)}</td>
        <td>${d.last_attempt_at_ms === null ? '—' : timestamp(d.last_attempt_at_ms)}</td>
        <td>${d.next_attempt_at_ms === null ? '—' : timestamp(d.next_attempt_at_ms)}</td>
        <td class="actions"><form method="post" action="/dashboard/webhooks/deliveries/${String(d.pk)}/resend" class="inline">
          ${csrfField(csrf)}<button type="submit" class="button subtle">Re-send<span class="visually-hidden"> ${d.event_id}</span></button></form></td>
      </tr>`,
    )}</tbody></table></div>`;
}

/** What an endpoint's deliveries are: Payrail's events, or accept.blue's envelope (docs/acceptblue-compatibility.md). */
function formatHint(endpoint: EndpointView, acceptBlue: AcceptBlueFacts | null): Html {
  if (acceptBlue === null) return html`events: ${endpoint.events.length === ALL_TYPES ? 'all' : endpoint.events.join(', ')}`;
  return html`${badge('wait', 'accept.blue format')} accept.blue id <code>${String(acceptBlue.id)}</code>${acceptBlue.description === null ? '' : html` · ${acceptBlue.description}`} · accept.blue's transaction and batch events`;
}

function endpointSection(csrf: string, endpoint: EndpointView, acceptBlue: AcceptBlueFacts | null, deliveries: readonly DeliveryView[]): Html {
  const action = (path: string, label: string, tone = '', confirm = '') =>
    html`<form method="post" action="/dashboard/webhooks/${endpoint.id}/${path}" class="inline"${confirm === '' ? '' : html` data-confirm="${confirm}"`}>
      ${csrfField(csrf)}<button type="submit" class="button ${tone}">${label}<span class="visually-hidden"> ${endpoint.url}</span></button></form>`;
  return html`<section class="card" aria-label="Endpoint ${endpoint.url}">
    <h3><code>${endpoint.url}</code> ${endpoint.enabled ? badge('ok', 'enabled') : badge('bad', 'disabled')}</h3>
    ${endpoint.disabled_reason === null ? '' : notice('error', `Payrail disabled this endpoint: ${endpoint.disabled_reason}. Fix it, then enable it again.`)}
    <p class="hint">Id <code>${endpoint.id}</code> · ${formatHint(endpoint, acceptBlue)} · added ${timestamp(Date.parse(endpoint.created_at))}</p>
    <p>${endpoint.enabled ? action('disable', 'Disable') : action('enable', 'Enable')}
      ${action('rotate', 'Rotate secret', '', 'Replace the signing secret? Deliveries are signed with the new one at once.')}
      ${action('delete', 'Delete', 'danger', 'Delete this endpoint and its delivery history?')}</p>
    ${deliveriesTable(csrf, deliveries)}
  </section>`;
}

export function webhooksBody(input: {
  csrf: string;
  endpoints: ReadonlyArray<{ endpoint: EndpointView; acceptBlue: AcceptBlueFacts | null; deliveries: readonly DeliveryView[] }>;
  sandbox: boolean;
  notice: Html | null;
}): Html {
  const disabled = input.endpoints.filter((e) => e.endpoint.disabled_reason !== null);
  return html`${input.notice}
  ${disabled.length === 0 ? '' : notice('error', `${disabled.length} webhook endpoint(s) disabled by Payrail after failing for 3 days.`)}
  <section aria-labelledby="webhooks-title">
    <h2 id="webhooks-title">Webhook endpoints</h2>
    <p class="hint">Payrail POSTs each event as JSON, signed with the endpoint's secret, retries for 3 days until a 2xx answer, and disables an endpoint that fails for 3 days. Webhooks registered in accept.blue's format (by a shop plugin, through the API) get accept.blue's envelope instead.</p>
    <p class="hint">${VERIFY_HINT}</p>
    ${input.endpoints.length === 0 ? emptyState('No webhook endpoints', 'Add one to receive events instead of polling.') : input.endpoints.map((e) => endpointSection(input.csrf, e.endpoint, e.acceptBlue, e.deliveries))}
    <form method="post" action="/dashboard/webhooks" class="filters">
      ${csrfField(input.csrf)}
      <div class="field"><label for="webhook-url">URL</label><input id="webhook-url" name="url" required maxlength="2048" placeholder="${input.sandbox ? 'http://localhost:3000/webhooks' : 'https://shop.example/webhooks'}"></div>
      <div class="field"><label for="webhook-events">Event types (comma-separated; empty for all)</label><input id="webhook-events" name="events" maxlength="1000" placeholder="transfer.succeeded, transfer.failed"></div>
      <button type="submit" class="button primary">Add endpoint</button>
    </form>
  </section>`;
}

/**
 * The signature a receiver should check (behaviour.md section 11):
 * Payrail-Signature binds the body to a time; X-Signature alone (kept for
 * accept.blue plugins) would accept a captured delivery replayed any time.
 */
const VERIFY_HINT = html`Verify <code>Payrail-Signature</code> (<code>t=&lt;unix seconds&gt;,v1=&lt;hex HMAC-SHA256 of "t.body"&gt;</code>) and refuse a <code>t</code> more than 5 minutes from now, as the SDK's <code>verifyWebhook</code> does: <code>X-Signature</code> signs the body alone, so a receiver that checks only it accepts a captured delivery replayed at any time.`;

export function webhookSecretBody(endpoint: EndpointWithSecret, what: 'created' | 'rotated'): Html {
  return html`${notice('success', what === 'created' ? `Endpoint ${endpoint.id} added.` : `Signing secret of ${endpoint.id} replaced; deliveries use the new one now.`)}
  <div class="card secrets">
    <p><strong>Copy the signing secret now.</strong> It is shown only once.</p>
    <p class="hint">${VERIFY_HINT}</p>
    <div class="secret"><label for="webhook-secret">Signing secret</label>
      <div class="secret-row"><input id="webhook-secret" class="mono" readonly value="${endpoint.signature}" data-secret><button type="button" class="button subtle" data-copy="webhook-secret" hidden>Copy</button></div></div>
  </div>
  <p><a class="button" href="/dashboard/webhooks">Done, back to webhooks</a></p>`;
}
