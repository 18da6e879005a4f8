// The page frame: skip link, header with environment badge and navigation
// for the signed-in role, the sign-out form, and the main landmark.
import type { Environment } from '../../config.ts';
import { html, type Html } from '../html.ts';
import type { SessionUser } from '../../flows/panel/sessions.ts';

export interface PageContext {
  readonly user: SessionUser | null;
  readonly environment: Environment;
  /** Path of the current page, to mark its navigation link. */
  readonly path: string;
}

interface NavItem {
  readonly href: string;
  readonly label: string;
}

const MERCHANT_NAV: readonly NavItem[] = [
  { href: '/dashboard/overview', label: 'Overview' },
  { href: '/dashboard/charges', label: 'Charges' },
  { href: '/dashboard/transfers', label: 'Transfers' },
  { href: '/dashboard/customers', label: 'Customers' },
  { href: '/dashboard/kyc', label: 'Receiver KYC' },
  { href: '/dashboard/credentials', label: 'Credentials' },
  { href: '/dashboard/surcharge', label: 'Surcharge' },
  { href: '/dashboard/team', label: 'Team' },
  { href: '/dashboard/webhooks', label: 'Webhooks' },
  { href: '/dashboard/account/two-factor', label: 'Two-factor' },
];

const OPERATOR_NAV: readonly NavItem[] = [
  { href: '/dashboard/operator/merchants', label: 'Merchants' },
  { href: '/dashboard/operator/signups', label: 'Sign-ups' },
  { href: '/dashboard/operator/reconciliation', label: 'Reconciliation' },
  { href: '/dashboard/operator/batches', label: 'Batches' },
  { href: '/dashboard/operator/processor-differences', label: 'Processor differences' },
  { href: '/dashboard/operator/reversals', label: 'Payout reversals' },
  { href: '/dashboard/operator/ledger', label: 'Ledger' },
  { href: '/dashboard/operator/audit', label: 'Audit log' },
  { href: '/dashboard/operator/mail', label: 'Mail' },
  { href: '/dashboard/account/two-factor', label: 'Two-factor' },
];

function nav(ctx: PageContext): Html {
  if (ctx.user === null) return html``;
  // The team page is for merchant admins only (domain/panel-permissions.ts); others do not see its link.
  const items =
    ctx.user.role === 'operator' ? OPERATOR_NAV : MERCHANT_NAV.filter((item) => item.href !== '/dashboard/team' || ctx.user?.merchantRole === 'admin');
  return html`<nav class="nav" aria-label="Main">
    <ul>
      ${items.map((item) => {
        const current = ctx.path === item.href || ctx.path.startsWith(`${item.href}/`);
        return html`<li><a href="${item.href}"${current ? html` aria-current="page"` : ''}>${item.label}</a></li>`;
      })}
    </ul>
  </nav>`;
}

function account(ctx: PageContext): Html {
  if (ctx.user === null) return html``;
  return html`<div class="account">
    <span class="account-email" title="${ctx.user.role}">${ctx.user.email}</span>
    <form method="post" action="/dashboard/logout" class="inline">
      <input type="hidden" name="_csrf" value="${ctx.user.csrfToken}">
      <button type="submit" class="button subtle">Sign out</button>
    </form>
  </div>`;
}

export function page(ctx: PageContext, title: string, body: Html): Html {
  const envLabel = ctx.environment === 'sandbox' ? 'Sandbox' : 'Production';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Payrail</title>
<link rel="stylesheet" href="/dashboard/assets/panel.css">
<script src="/dashboard/assets/panel.js" defer></script>
</head>
<body>
<a class="skip" href="#content">Skip to content</a>
<header class="top">
  <div class="brand"><a href="/dashboard">Payrail</a> <span class="env env-${ctx.environment}">${envLabel}</span></div>
  ${nav(ctx)}
  ${account(ctx)}
</header>
<main id="content" tabindex="-1">
<h1>${title}</h1>
${body}
</main>
</body>
</html>`;
}
