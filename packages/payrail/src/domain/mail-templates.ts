// The text of every mail Payrail sends: a subject, a plain-text body and an
// HTML body. Whatever a person typed (a name, a company) is escaped in the
// HTML body and never put in a subject. Secrets never appear in a mail: a
// mail carries a one-time link to a page that shows them.
import { escapeHtml } from './html-escape.ts';

export interface MailContent {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

const SIGNATURE = '— Payrail';

function compose(subject: string, paragraphs: readonly string[], link: { url: string; label: string } | null): MailContent {
  const text = [...paragraphs, ...(link === null ? [] : [`${link.label}: ${link.url}`]), SIGNATURE].join('\n\n');
  const html = [
    '<!doctype html><html><body>',
    ...paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
    link === null ? '' : `<p><a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a></p>`,
    `<p>${escapeHtml(SIGNATURE)}</p>`,
    '</body></html>',
  ].join('\n');
  return { subject, text, html };
}

function hours(ms: number): string {
  const h = Math.round(ms / 3_600_000);
  return h === 1 ? '1 hour' : `${h} hours`;
}

export function signupConfirmMail(input: { name: string; company: string; url: string; validForMs: number }): MailContent {
  return compose(
    'Confirm your e-mail address for Payrail sandbox access',
    [
      `Hello ${input.name},`,
      `someone (we hope you) asked for Payrail sandbox access for ${input.company} with this address. Follow the link below within ${hours(input.validForMs)} to confirm it.`,
      'If this was not you, ignore this mail: nothing happens without the confirmation.',
    ],
    { url: input.url, label: 'Confirm my address' },
  );
}

export function signupAlreadyKnownMail(input: { signInUrl: string; resetUrl: string }): MailContent {
  return compose(
    'Your Payrail sandbox access',
    [
      'Someone asked for Payrail sandbox access with this address, which already has a request waiting for approval or a panel account.',
      `Nothing new was created. If you have an account, sign in at ${input.signInUrl}; if you forgot its password, ask for a new one at ${input.resetUrl}.`,
    ],
    null,
  );
}

export function credentialsMail(input: { merchantName: string; url: string; validForMs: number; environment: 'sandbox' | 'production' }): MailContent {
  const where = input.environment === 'sandbox' ? 'sandbox' : 'production';
  return compose(
    `Your Payrail ${where} credentials are ready`,
    [
      `The merchant ${input.merchantName} is set up in the Payrail ${where}.`,
      `Follow the link below within ${hours(input.validForMs)} to see its API credentials, once, and to set the password of your control panel account. The link works one time only; the credentials are not in this mail.`,
    ],
    { url: input.url, label: 'Show my credentials' },
  );
}

export function signupRejectedMail(input: { name: string }): MailContent {
  return compose('Your Payrail sandbox request', [`Hello ${input.name},`, 'your request for Payrail sandbox access was not approved.'], null);
}

export function passwordResetMail(input: { url: string; validForMs: number }): MailContent {
  return compose(
    'Set a new password for the Payrail control panel',
    [
      `Someone (we hope you) asked to set a new password for the Payrail control panel account of this address. Follow the link below within ${hours(input.validForMs)}; it works once.`,
      'If this was not you, ignore this mail: your password stays as it is.',
    ],
    { url: input.url, label: 'Set a new password' },
  );
}

export function invitationMail(input: { merchantName: string; role: string; invitedBy: string; url: string; validForMs: number }): MailContent {
  return compose(
    'You are invited to a Payrail control panel',
    [
      `${input.invitedBy} invites you to the Payrail control panel of ${input.merchantName}, as ${input.role}.`,
      `Follow the link below within ${hours(input.validForMs)} to set your password; it works once.`,
    ],
    { url: input.url, label: 'Accept the invitation' },
  );
}
