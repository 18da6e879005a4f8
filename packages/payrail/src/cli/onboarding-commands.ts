// The `payrail` commands of onboarding by e-mail: the sign-up queue
// (`signup list|approve|reject`), onboarding a merchant by e-mail
// (`merchant onboard`, the way production merchants get their credentials)
// and the mail outbox (`mail list`: with no SMTP server configured, the place
// where mails and their links can be read).
import type { Command } from 'commander';
import { isWireDialect, WIRE_DIALECTS, type WireDialect } from '../domain/wire-dialect.ts';
import { MAIL_LISTED_MAX, type MailRow, mailList } from '../flows/mail/outbox.ts';
import { onboardMerchant } from '../flows/onboarding/merchant-invite.ts';
import { approveSignup, listSignups, rejectSignup, type SignupRow, type SignupStatus } from '../flows/onboarding/signup.ts';
import { cliActor } from './actor.ts';
import type { CliHelpers } from './security-commands.ts';

const SIGNUP_STATUSES: readonly SignupStatus[] = ['unconfirmed', 'confirmed', 'approved', 'rejected'];

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function signupLine(r: SignupRow): string {
  return [r.id, r.status.padEnd(11), iso(r.created_at_ms), r.email, `"${r.company}"`, r.merchant_id ?? ''].filter((p) => p !== '').join('  ');
}

function mailText(m: MailRow): string {
  const head = `#${m.id}  ${m.status}  ${iso(m.created_at_ms)}  to ${m.to_address}  ${m.subject}${m.last_error === null ? '' : `  (last error: ${m.last_error})`}`;
  return m.text_body === '' ? head : `${head}\n${m.text_body.replace(/^/gm, '    ')}`;
}

export function registerOnboardingCommands(program: Command, merchant: Command, helpers: CliHelpers): void {
  const signup = program.command('signup').description('the queue of sandbox sign-up requests');
  signup
    .command('list')
    .description('list sign-up requests, newest first')
    .option('--status <status>', `only this status (${SIGNUP_STATUSES.join(', ')})`)
    .action(async (options: { status?: string }, command: Command) => {
      if (options.status !== undefined && !(SIGNUP_STATUSES as readonly string[]).includes(options.status))
        throw helpers.usage(`--status must be one of ${SIGNUP_STATUSES.join(', ')}`);
      const rows = await helpers.withService((service) => listSignups(service, (options.status ?? null) as SignupStatus | null));
      helpers.output(command, rows, () => (rows.length === 0 ? 'no sign-up requests' : rows.map(signupLine).join('\n')));
    });
  signup
    .command('approve <id>')
    .description('approve a confirmed request: the merchant is made and its developer mailed a one-time credentials link')
    .action(async (id: string, _options: unknown, command: Command) => {
      const done = await helpers.withService((service) => approveSignup(service, id, cliActor()));
      helpers.output(command, done, () => `approved ${done.id}: merchant ${done.merchant_id}; the credentials link is in the mail outbox`);
    });
  signup
    .command('reject <id>')
    .description('reject a confirmed request; its author is told by mail')
    .action(async (id: string, _options: unknown, command: Command) => {
      const done = await helpers.withService((service) => rejectSignup(service, id, cliActor()));
      helpers.output(command, done, () => `rejected ${done.id}`);
    });

  merchant
    .command('onboard')
    .description('make a merchant and mail its developer a one-time link to its credentials and panel account')
    .requiredOption('--name <name>', 'merchant name')
    .requiredOption('--email <email>', "the developer's e-mail address")
    .option('--dialect <dialect>', `wire dialect of its first source: ${WIRE_DIALECTS.join(' or ')} (default spec)`)
    .action(async (options: { name: string; email: string; dialect?: string }, command: Command) => {
      if (options.dialect !== undefined && !isWireDialect(options.dialect)) throw helpers.usage(`--dialect must be ${WIRE_DIALECTS.join(' or ')}`);
      const dialect = options.dialect as WireDialect | undefined;
      const done = await helpers.withService((service) => onboardMerchant(service, { name: options.name, email: options.email, dialect }, cliActor()));
      helpers.output(
        command,
        done,
        () => `merchant ${done.merchant_id} made (first source in dialect ${done.dialect}); a one-time credentials link is mailed to ${done.email}`,
      );
    });

  const mail = program.command('mail').description('the mail outbox');
  mail
    .command('list')
    .description('list mails, newest first (with no SMTP server configured, read the links here)')
    .option('--to <email>', 'only mails to this address')
    .option('--limit <n>', `at most this many (1 to ${MAIL_LISTED_MAX})`, '50')
    .action(async (options: { to?: string; limit: string }, command: Command) => {
      const limit = Number(options.limit);
      if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAIL_LISTED_MAX) throw helpers.usage(`--limit must be 1 to ${MAIL_LISTED_MAX}`);
      const rows = await helpers.withService((service) => mailList(service, { to: options.to ?? null }, limit));
      helpers.output(command, rows, () => (rows.length === 0 ? 'no mail' : rows.map(mailText).join('\n\n')));
    });
}
