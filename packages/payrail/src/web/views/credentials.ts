// Sources and credentials: the list with rotate and revoke, the form to
// create a source, the transfer API key, and the one-time display of new
// secrets (only their hashes are kept, so this page is the only chance to
// copy them).
import type { SourceCredentials } from '../../flows/merchants/merchants.ts';
import type { ActiveTransferKey, SourceListItem } from '../../flows/panel/merchant-views.ts';
import { timestamp } from '../format.ts';
import { html, type Html } from '../html.ts';
import { badge, csrfField, DIALECT_LABELS, dialectOptions, emptyState, notice } from './components.ts';

/** A source's wire dialect: a form to change it for an admin of an active source, its name otherwise. */
function dialectCell(csrf: string, source: SourceListItem, mayChange: boolean): Html {
  const label = html`<code>${source.dialect}</code>`;
  if (!mayChange || source.revoked_at_ms !== null) return label;
  return html`<form method="post" action="/dashboard/credentials/sources/${source.id}/dialect" class="inline" data-confirm="Change how the payin API answers ${source.name}? An integration written for the other dialect may stop working.">
    ${csrfField(csrf)}
    <label for="dialect-${source.id}" class="visually-hidden">Wire dialect of ${source.name}</label>
    <select id="dialect-${source.id}" name="dialect">${dialectOptions(source.dialect)}</select>
    <button type="submit" class="button">Set<span class="visually-hidden"> the wire dialect of ${source.name}</span></button>
  </form>`;
}

/** The page origins of an active source, each with a remove button, and the form to add one. */
function originsCell(csrf: string, source: SourceListItem, origins: readonly string[], sandbox: boolean): Html {
  if (source.revoked_at_ms !== null) return html`—`;
  const none = sandbox ? 'none: pages on http://localhost and http://127.0.0.1 (sandbox)' : 'none: the card form is shown nowhere';
  return html`<ul class="origins">${
    origins.length === 0
      ? html`<li class="muted">${none}</li>`
      : origins.map(
          (origin) => html`<li><code>${origin}</code>
            <form method="post" action="/dashboard/credentials/sources/${source.id}/origins/remove" class="inline">
              ${csrfField(csrf)}<input type="hidden" name="origin" value="${origin}"><button type="submit" class="button subtle">Remove<span class="visually-hidden"> ${origin}</span></button></form></li>`,
        )
  }</ul>
  <form method="post" action="/dashboard/credentials/sources/${source.id}/origins" class="inline">
    ${csrfField(csrf)}
    <label for="origin-${source.id}" class="visually-hidden">Page origin for ${source.name}</label>
    <input id="origin-${source.id}" name="origin" required maxlength="200" placeholder="https://shop.example">
    <button type="submit" class="button">Add origin<span class="visually-hidden"> to ${source.name}</span></button>
  </form>`;
}

export function credentialsBody(input: {
  csrf: string;
  sources: readonly SourceListItem[];
  transferKey: ActiveTransferKey | null;
  origins: ReadonlyMap<string, readonly string[]>;
  sandbox: boolean;
  /** Whether the signed-in user may change a source's wire dialect (a merchant admin). */
  mayChangeDialect: boolean;
  /** Whether the signed-in user may make, rotate and revoke keys (a role with money power: domain/panel-permissions.ts). */
  mayIssueKeys: boolean;
  notice: Html | null;
}): Html {
  const { csrf } = input;
  const sourceRows =
    input.sources.length === 0
      ? emptyState('No sources yet', 'Create a source to get an API key, PIN and tokenization token for the card payin API.')
      : html`<div class="table-wrap"><table>
        <caption class="visually-hidden">Payin sources</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Source id</th><th scope="col">API key id</th><th scope="col">Status</th><th scope="col">Wire dialect</th><th scope="col">Card form origins</th><th scope="col">Created</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>${input.sources.map(
          (s) => html`<tr>
            <th scope="row">${s.name}</th>
            <td><code>${s.id}</code></td>
            <td>${s.key_id === null ? '—' : html`<code>${s.key_id}</code>`}</td>
            <td>${s.revoked_at_ms === null ? badge('ok', 'active') : badge('bad', 'revoked')}</td>
            <td>${dialectCell(csrf, s, input.mayChangeDialect)}</td>
            <td>${originsCell(csrf, s, input.origins.get(s.id) ?? [], input.sandbox)}</td>
            <td>${timestamp(s.created_at_ms)}</td>
            <td class="actions">${
              s.revoked_at_ms === null && input.mayIssueKeys
                ? html`<form method="post" action="/dashboard/credentials/sources/${s.id}/rotate" class="inline" data-confirm="Rotate the credentials of ${s.name}? The current API key, PIN and tokenization token stop working at once.">
                    ${csrfField(csrf)}<button type="submit" class="button">Rotate<span class="visually-hidden"> credentials of ${s.name}</span></button></form>
                  <form method="post" action="/dashboard/credentials/sources/${s.id}/revoke" class="inline" data-confirm="Revoke ${s.name}? Its credentials stop working at once and cannot be restored.">
                    ${csrfField(csrf)}<button type="submit" class="button danger">Revoke<span class="visually-hidden"> ${s.name}</span></button></form>`
                : ''
            }</td>
          </tr>`,
        )}</tbody></table></div>`;
  return html`${input.notice}
  <section aria-labelledby="sources-title">
    <h2 id="sources-title">Payin sources</h2>
    <p class="hint">Each source has an API key and a PIN for the charge API, and a public tokenization token for card tokenization in the browser.
      The hosted card form of a source is shown only on pages at the origins it lists${input.sandbox ? ' (in the sandbox, a source that lists none allows http://localhost and http://127.0.0.1 on any port)' : ''}.
      A source's wire dialect decides how the payin API answers its key: Payrail's own answers (spec), or accept.blue v2's, for a shop plugin written for accept.blue${input.mayChangeDialect ? '' : '; an admin of your merchant may change it'}.</p>
    ${sourceRows}
    ${
      input.mayIssueKeys
        ? html`<form method="post" action="/dashboard/credentials/sources" class="filters">
      ${csrfField(csrf)}
      <div class="field"><label for="source-name">New source name</label><input id="source-name" name="name" required maxlength="100" placeholder="Web shop"></div>
      <div class="field"><label for="source-dialect">Wire dialect</label><select id="source-dialect" name="dialect">${dialectOptions('spec')}</select></div>
      <button type="submit" class="button primary">Create source</button>
    </form>`
        : html`<p class="hint">Keys and PINs can charge, void and refund, and the transfer key pays out: only an admin of your merchant makes, rotates or revokes them.</p>`
    }
  </section>
  <section aria-labelledby="transfer-key-title">
    <h2 id="transfer-key-title">Transfer API key</h2>
    <p>${input.transferKey === null ? 'No active transfer API key.' : html`Active key <code>${input.transferKey.id}</code>, issued ${timestamp(input.transferKey.created_at_ms)}.`}</p>
    ${
      input.mayIssueKeys
        ? html`<form method="post" action="/dashboard/credentials/transfer-key/rotate" data-confirm="Rotate the transfer API key? The current key stops working at once.">
      ${csrfField(csrf)}
      <button type="submit" class="button">Rotate transfer API key</button>
    </form>`
        : ''
    }
  </section>`;
}

function secret(id: string, label: string, value: string): Html {
  return html`<div class="secret">
    <label for="${id}">${label}</label>
    <div class="secret-row"><input id="${id}" class="mono" readonly value="${value}" data-secret><button type="button" class="button subtle" data-copy="${id}" hidden>Copy</button></div>
  </div>`;
}

export function sourceSecretsBody(created: SourceCredentials, what: 'created' | 'rotated'): Html {
  return html`${notice('success', what === 'created' ? `Source ${created.id} created.` : `Credentials of source ${created.id} rotated; the old ones no longer work.`)}
  <div class="card secrets">
    <p><strong>Copy these now.</strong> They are shown only once: Payrail keeps only their hashes and cannot show them again.</p>
    <p>Wire dialect: <code>${created.dialect}</code> (${DIALECT_LABELS[created.dialect]}).</p>
    ${secret('api-key', 'API key', created.api_key)}
    ${secret('pin', 'PIN', created.pin)}
    ${secret('tokenization-token', 'Tokenization token', created.tokenization_token)}
  </div>
  <p><a class="button" href="/dashboard/credentials">Done, back to credentials</a></p>`;
}

export function transferKeySecretBody(key: string): Html {
  return html`${notice('success', 'New transfer API key issued; the old one no longer works.')}
  <div class="card secrets">
    <p><strong>Copy it now.</strong> It is shown only once.</p>
    ${secret('transfer-api-key', 'Transfer API key', key)}
  </div>
  <p><a class="button" href="/dashboard/credentials">Done, back to credentials</a></p>`;
}
