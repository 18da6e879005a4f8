// The text of every mail Payrail sends: a subject, a plain-text body and an
// HTML body. Whatever a person typed (a name, a company, a merchant's name)
// is never put in a subject, and in the body it is plain, short and inert
// (userText): no markup, and nothing a mail reader would make a link of, so
// a name cannot turn a Payrail mail into a phishing page that links
// elsewhere. The only link in a mail is Payrail's own. Secrets never appear
// in a mail: a mail carries a one-time link to a page that shows them.
import { escapeHtml } from './html-escape.ts';

/** Characters of a typed name a mail shows; a longer one is cut with an ellipsis. */
export const MAIL_NAME_CHARS_MAX = 60;

/**
 * A typed name as a mail shows it, defanged: control characters and runs of
 * white space become one space; angle brackets (markup) are dropped; a
 * scheme's "://" becomes "[:]//", a dot between a name and a domain ending
 * becomes "[.]" and an "@" between words becomes "[at]", so no mail reader
 * finds a URL, a host name or an address to link; then it is cut to
 * MAIL_NAME_CHARS_MAX characters and quoted. Escaping for the HTML body
 * happens after, as for all text.
 */
export function userText(typed: string): string {
  const plain = typed
    // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f]/g, ' ')
    .replace(/[<>]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const cut = [...plain].length > MAIL_NAME_CHARS_MAX ? `${[...plain].slice(0, MAIL_NAME_CHARS_MAX - 1).join('')}…` : plain;
  const defanged = cut
    .replace(/:\/\//g, '[:]//')
    .replace(/([\p{L}\p{N}_-])[.。．｡]+(?=[\p{L}\p{N}])/gu, '$1[.]')
    .replace(/(\S)@(?=\S)/g, '$1[at]');
  return `"${defanged}"`;
}

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
      `Hello ${userText(input.name)},`,
      `someone (we hope you) asked for Payrail sandbox access for ${userText(input.company)} with this address. Follow the link below within ${hours(input.validForMs)} to confirm it.`,
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
      `The merchant ${userText(input.merchantName)} is set up in the Payrail ${where}.`,
      `Follow the link below within ${hours(input.validForMs)} to see its API credentials, once, and to set the password of your control panel account. The link works one time only; the credentials are not in this mail.`,
    ],
    { url: input.url, label: 'Show my credentials' },
  );
}

export function signupRejectedMail(input: { name: string }): MailContent {
  return compose('Your Payrail sandbox request', [`Hello ${userText(input.name)},`, 'your request for Payrail sandbox access was not approved.'], null);
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

/** `invitedBy`: the inviting user's name or address, or null when unknown. */
export function invitationMail(input: { merchantName: string; role: string; invitedBy: string | null; url: string; validForMs: number }): MailContent {
  return compose(
    'You are invited to a Payrail control panel',
    [
      `${input.invitedBy === null ? 'An administrator' : userText(input.invitedBy)} invites you to the Payrail control panel of ${userText(input.merchantName)}, as ${input.role}.`,
      `Follow the link below within ${hours(input.validForMs)} to set your password; it works once.`,
    ],
    { url: input.url, label: 'Accept the invitation' },
  );
}
