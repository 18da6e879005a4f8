// The `payrail` commands of the audit trail and of panel account security:
// `audit`, the user administration commands (list, disable, enable,
// reset-password, end-sessions, reset-two-factor) and `source origins`.
// main.ts hands in its helpers (so this module imports nothing of main and
// there is no cycle) and the `user` and `source` commands to extend.
import type { Command } from 'commander';
import { AUDIT_ACTIONS, type AuditAction, isAuditAction } from '../domain/audit.ts';
import { AUDIT_LISTED_MAX, type AuditEventRow, auditEvents } from '../flows/operations/audit.ts';
import { disableUser, enableUser, endUserSessions, listUsers, resetUserPassword, resetUserTotp, type UserChange } from '../flows/panel/users.ts';
import { addOrigin, originDepsOf, removeOrigin, sourceOrigins } from '../flows/access/source-origins.ts';
import type { Service } from '../service.ts';
import { cliActor } from './actor.ts';

export interface CliHelpers {
  withService<T>(work: (service: Service) => Promise<T>): Promise<T>;
  output(command: Command, json: unknown, text: () => string): void;
  /** Writes progress and warnings (process.stderr, or a test's buffer). */
  stderr(text: string): void;
  /** The environment the command runs with. */
  readonly env: NodeJS.ProcessEnv;
  /** Builds the error for a command line that cannot be carried out as written. */
  usage(message: string): Error;
}

const AUDIT_LIMIT_DEFAULT = 200;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function auditLine(e: AuditEventRow): string {
  const actor = e.actor_label ?? e.actor_id;
  return [
    iso(e.at_ms),
    e.outcome.padEnd(7),
    e.action.padEnd(22),
    `${e.actor_kind}${actor === null ? '' : `:${actor}`}`,
    e.target === null ? '' : `target=${e.target}`,
    e.client_address === null ? '' : `from=${e.client_address}`,
    e.detail === null ? '' : `(${e.detail})`,
  ]
    .filter((part) => part !== '')
    .join('  ');
}

export function registerAuditCommand(program: Command, helpers: CliHelpers): void {
  program
    .command('audit')
    .description('print the audit trail, newest first: sign-ins, operator actions, credential and user changes, refused API credentials')
    .option('--since <iso>', 'only events at or after this time (ISO 8601, e.g. 2026-01-31 or 2026-01-31T12:00:00Z)')
    .option('--action <action>', `only this action (${AUDIT_ACTIONS.join(', ')})`)
    .option('--limit <n>', `at most this many events (1 to ${AUDIT_LISTED_MAX})`, String(AUDIT_LIMIT_DEFAULT))
    .action(async (options: { since?: string; action?: string; limit: string }, command: Command) => {
      const sinceMs = options.since === undefined ? null : Date.parse(options.since);
      if (sinceMs !== null && Number.isNaN(sinceMs)) throw helpers.usage(`--since must be an ISO 8601 date or time, not ${options.since}`);
      if (options.action !== undefined && !isAuditAction(options.action)) throw helpers.usage(`--action must be one of ${AUDIT_ACTIONS.join(', ')}`);
      const limit = Number(options.limit);
      if (!Number.isSafeInteger(limit) || limit < 1 || limit > AUDIT_LISTED_MAX) throw helpers.usage(`--limit must be 1 to ${AUDIT_LISTED_MAX}`);
      const action = (options.action ?? null) as AuditAction | null;
      const { rows } = await helpers.withService((service) => auditEvents(service, { action, fromMs: sinceMs, toMs: null, beforeId: null }, limit));
      helpers.output(command, rows, () => (rows.length === 0 ? 'no audit events' : rows.map(auditLine).join('\n')));
    });
}

function changeText(done: UserChange, what: string): string {
  return `user ${done.email} (${done.id}) ${what}${done.sessions_ended > 0 ? `; ${done.sessions_ended} session(s) ended` : ''}`;
}

export function registerUserAdminCommands(user: Command, helpers: CliHelpers): void {
  user
    .command('list')
    .description('list control panel users (never a password or a secret)')
    .action(async (_options, command: Command) => {
      const users = await helpers.withService((service) => listUsers(service));
      helpers.output(command, users, () =>
        users.length === 0
          ? 'no users'
          : users
              .map(
                (u) =>
                  `${u.id}  ${u.email}  ${u.role}${u.merchant_id === null ? '' : ` of ${u.merchant_id}`}  ${u.disabled_at_ms === null ? 'enabled' : 'DISABLED'}  two-factor ${u.totp_enrolled_at_ms === null ? 'off' : 'on'}`,
              )
              .join('\n'),
      );
    });

  const byEmail = (name: string, description: string, run: (service: Service, email: string) => Promise<UserChange>, what: string) =>
    user
      .command(name)
      .requiredOption('--email <email>', 'e-mail address of the user')
      .description(description)
      .action(async (options: { email: string }, command: Command) => {
        const done = await helpers.withService((service) => run(service, options.email));
        helpers.output(command, done, () => changeText(done, what));
      });

  byEmail('disable', 'disable a user: its sessions end now and it cannot sign in', (s, email) => disableUser(s, email, cliActor()), 'disabled');
  byEmail('enable', 'enable a disabled user (and lift a lock-out of its account)', (s, email) => enableUser(s, email, cliActor()), 'enabled');
  byEmail('end-sessions', "end every session of a user (a stolen laptop's browser, say)", (s, email) => endUserSessions(s, email, cliActor()), 'signed out');
  byEmail(
    'reset-two-factor',
    'remove the second factor of a user who lost phone and recovery codes; an operator enrols again at its next sign-in',
    (s, email) => resetUserTotp(s, email, cliActor()),
    'has no second factor now',
  );

  user
    .command('reset-password')
    .requiredOption('--email <email>', 'e-mail address of the user')
    .description('give a user a new generated password, printed once; its sessions end')
    .action(async (options: { email: string }, command: Command) => {
      const done = await helpers.withService((service) => resetUserPassword(service, options.email, cliActor()));
      helpers.output(command, done, () =>
        [changeText(done, 'has a new password'), `password    ${done.password}`, '(shown once: only a hash is stored)'].join('\n'),
      );
    });
}

export function registerOriginsCommand(source: Command, helpers: CliHelpers): void {
  source
    .command('origins')
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--source <id>', 'source id')
    .option('--add <origin>', 'allow pages at this origin (e.g. https://shop.example) to show the hosted card form')
    .option('--remove <origin>', 'no longer allow this origin')
    .option('--list', 'list the allowed origins (the default)')
    .description('the page origins where the hosted card form of a source may be shown (sandbox: none listed allows http://localhost and http://127.0.0.1)')
    .action(async (options: { merchant: string; source: string; add?: string; remove?: string; list?: boolean }, command: Command) => {
      const chosen = [options.add !== undefined, options.remove !== undefined, options.list === true].filter(Boolean).length;
      if (chosen > 1) throw helpers.usage('give one of --add, --remove or --list');
      const input = { merchantId: options.merchant, sourceId: options.source };
      const origins = await helpers.withService((service) => {
        const deps = originDepsOf(service);
        if (options.add !== undefined) return addOrigin(deps, { ...input, origin: options.add }, cliActor());
        if (options.remove !== undefined) return removeOrigin(deps, { ...input, origin: options.remove }, cliActor());
        return sourceOrigins(deps, input);
      });
      helpers.output(command, { source: options.source, origins }, () =>
        origins.length === 0 ? `source ${options.source} lists no origins` : origins.map((o) => `${options.source}  ${o}`).join('\n'),
      );
    });
}
