// The rules of the public sandbox sign-up form: what each field may hold.
// Text is kept as typed (it is escaped wherever it is shown, web pages and
// mail alike) except for control characters, which no name needs and which
// could otherwise bend a mail header or a log line.

export const SIGNUP_NAME_LENGTH_MAX = 100;
export const SIGNUP_COMPANY_LENGTH_MAX = 120;
export const SIGNUP_CORRIDORS_LENGTH_MAX = 300;
export const SIGNUP_EMAIL_LENGTH_MAX = 254;

/** Sign-up form posts one client address may make per minute (a flood gets 429). */
export const SIGNUP_POSTS_PER_ADDRESS_PER_MIN = 5;
/** Mails Payrail writes to one inbox within MAIL_TO_ADDRESS_WINDOW_MS because of sign-ups or resets. */
export const MAILS_TO_ADDRESS_MAX = 3;
export const MAIL_TO_ADDRESS_WINDOW_MS = 60 * 60_000;

/**
 * A conservative address pattern: the characters RFC 5321 allows unquoted in
 * the local part, and a domain of at least two labels. Anything stranger is
 * refused rather than risked in a mail header.
 */
const EMAIL_PATTERN =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export function isDeliverableAddress(email: string): boolean {
  return email.length <= SIGNUP_EMAIL_LENGTH_MAX && EMAIL_PATTERN.test(email);
}

export interface SignupForm {
  readonly name: string;
  readonly company: string;
  readonly email: string;
  readonly corridors: string;
}

export type SignupProblems = Partial<Record<keyof SignupForm, string>>;

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f]/g;

function clean(text: string): string {
  return text.replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();
}

/**
 * Markup or a web address in a name: names go into mails to any inbox, so
 * one that carries a link could make a Payrail mail point elsewhere. (Mails
 * also defang whatever a name holds: domain/mail-templates.ts userText.)
 */
const LINK_OR_MARKUP = /[<>]|[a-z][a-z0-9+.-]*:\/\/|\bwww\.|\b(?:https?|ftp|mailto|javascript|data):/i;

/** The form as it will be kept (trimmed, e-mail lower-cased), or what is wrong with each field. */
export function checkSignupForm(input: SignupForm): { ok: true; form: SignupForm } | { ok: false; problems: SignupProblems; form: SignupForm } {
  const form: SignupForm = {
    name: clean(input.name),
    company: clean(input.company),
    email: input.email.trim().toLowerCase(),
    corridors: clean(input.corridors),
  };
  const problems: SignupProblems = {};
  if (form.name === '' || form.name.length > SIGNUP_NAME_LENGTH_MAX) problems.name = `Enter your name (at most ${SIGNUP_NAME_LENGTH_MAX} characters).`;
  if (form.company === '' || form.company.length > SIGNUP_COMPANY_LENGTH_MAX)
    problems.company = `Enter your company (at most ${SIGNUP_COMPANY_LENGTH_MAX} characters).`;
  if (problems.name === undefined && LINK_OR_MARKUP.test(form.name)) problems.name = 'Enter your name without a web address or markup (< >).';
  if (problems.company === undefined && LINK_OR_MARKUP.test(form.company)) {
    problems.company = "Enter your company's name without a web address or markup (< >).";
  }
  if (!isDeliverableAddress(form.email)) problems.email = 'Enter a valid e-mail address, like dev@example.com.';
  if (form.corridors === '' || form.corridors.length > SIGNUP_CORRIDORS_LENGTH_MAX)
    problems.corridors = `Say which corridors you plan to use, like US to Kenya (at most ${SIGNUP_CORRIDORS_LENGTH_MAX} characters).`;
  return Object.keys(problems).length === 0 ? { ok: true, form } : { ok: false, problems, form };
}
