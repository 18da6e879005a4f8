// The parts of the panel that show a check (behaviour section 17): what a
// list row says it was paid with, and a check's page: its bank account
// (never more of the account number than its last four digits), the
// timeline of its ACH entry, and a returned check's code and reason up front.
import { ACH_STATUS_NAMES } from '../../domain/ach.ts';
import type { ChargeListItem, CheckAccountDetail } from '../../flows/panel/merchant-views.ts';
import { chargeTone, timestamp } from '../format.ts';
import { html, type Html } from '../html.ts';
import { badge, facts, notice } from './components.ts';

/** "Visa ···· 4242" for a card, "Check ••••1234" for a check: the last four digits only. */
export function paidWith(c: Pick<ChargeListItem, 'payment_type' | 'card_type' | 'last4'>): Html {
  if (c.payment_type === 'check') return html`<span class="paid-check">Check ••••${c.last4}</span>`;
  return html`${c.card_type} ···· ${c.last4}`;
}

/** A step of the timeline: when, the status the step shows, and what more it says. */
interface Step {
  readonly atMs: number;
  readonly status: string;
  readonly label: string;
  readonly note: string | null;
}

/** The steps the entry's timestamps record, in time order (a voided, declined or failed entry ended at its last update). */
function timelineSteps(check: CheckAccountDetail): Step[] {
  const steps: Step[] = [{ atMs: check.submitted_at_ms, status: 'pending', label: 'Submitted', note: null }];
  if (check.originated_at_ms !== null) steps.push({ atMs: check.originated_at_ms, status: 'originated', label: 'Originated', note: 'Sent to the ACH network' });
  if (check.settled_at_ms !== null) {
    steps.push({
      atMs: check.settled_at_ms,
      status: 'settled',
      label: 'Settled',
      note: check.direction === 'debit' ? 'The money arrived' : 'The money left for the account',
    });
  }
  if (check.returned_at_ms !== null) {
    steps.push({ atMs: check.returned_at_ms, status: 'returned', label: 'Returned', note: returnText(check) });
  }
  if (check.state === 'voided') steps.push({ atMs: check.updated_at_ms, status: 'voided', label: 'Voided', note: null });
  if (check.state === 'declined' || check.state === 'failed') {
    steps.push({
      atMs: check.updated_at_ms,
      status: ACH_STATUS_NAMES[check.state],
      label: check.state === 'declined' ? 'Declined' : 'Failed',
      note: check.decline_message,
    });
  }
  return steps.sort((a, b) => a.atMs - b.atMs);
}

function returnText(check: CheckAccountDetail): string {
  return `${check.return_code ?? 'No code'}: ${check.return_reason ?? 'no reason given'}`;
}

/** The account, the return (when returned) and the timeline of a check's page, after the charge's own facts. */
export function checkDetailSections(check: CheckAccountDetail | null, last4: string, chargeFacts: ReadonlyArray<readonly [string, string | Html]>): Html {
  if (check === null) {
    return html`${facts(chargeFacts)}${notice('info', 'The ACH entry of this check is not recorded yet; its account and timeline appear once it is.')}`;
  }
  const returned =
    check.state === 'returned'
      ? notice(
          'error',
          html`<strong>Returned ${check.return_code ?? ''}</strong>: ${check.return_reason ?? 'no reason given'}${
            check.returned_at_ms === null ? '' : html` <span class="muted">(${timestamp(check.returned_at_ms)})</span>`
          }`,
        )
      : '';
  const account = facts([
    ['Name on the account', check.account_name],
    ['Routing number', html`<code>${check.routing_number}</code>`],
    ['Account number', `••••${last4}`],
    ['Account type', check.account_type],
    ['SEC code', check.sec_code],
    ['Direction', check.direction === 'debit' ? 'Debit (money from the account)' : 'Credit (money to the account)'],
  ]);
  const timeline = html`<ol class="timeline">${timelineSteps(check).map(
    (s) =>
      html`<li><span class="timeline-when">${timestamp(s.atMs)}</span> ${badge(chargeTone(s.status), s.label)}${s.note === null ? '' : html` <span>${s.note}</span>`}</li>`,
  )}</ol>`;
  return html`${returned}${facts(chargeFacts)}
  <h2>Bank account</h2>
  ${account}
  <h2>Timeline</h2>
  ${timeline}`;
}
