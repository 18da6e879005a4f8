// The `payrail` command. Every command accepts --json for scripts; errors go
// to stderr with a non-zero exit code. Store commands work on the same store
// as a running server (same PAYRAIL_DATA_DIR or DATABASE_URL).
import { Command, InvalidArgumentError } from 'commander';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { formatCents, parseDollarString } from '../domain/money.ts';
import { isApiError } from '../errors.ts';
import { verifyLedger } from '../flows/ledger-verify.ts';
import * as merchants from '../flows/merchants.ts';
import * as transferOps from '../flows/transfers/operator.ts';
import { serve } from '../http/server.ts';
import { createLogger } from '../log.ts';
import { createService } from '../runtime.ts';
import type { Service } from '../service.ts';
import { createJobs } from '../worker/jobs.ts';
import { createUser } from '../web/users.ts';
import { Worker } from '../worker/worker.ts';

/** A command line that cannot be carried out as written. */
class UsageError extends Error {}

/** Raised by a command to exit non-zero after printing its own result. */
class ExitCode extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

function dollars(value: string): number {
  const parsed = parseDollarString(value);
  if (!parsed.ok) throw new InvalidArgumentError(`amount ${parsed.reason} (for example 250.00)`);
  return parsed.cents;
}

function dollarsOrZero(value: string): number {
  return /^0+(\.0{1,2})?$/.test(value) ? 0 : dollars(value);
}

interface GlobalOptions {
  json?: boolean;
}

function output(command: Command, json: unknown, text: () => string): void {
  const { json: asJson } = command.optsWithGlobals<GlobalOptions>();
  process.stdout.write(asJson ? `${JSON.stringify(json)}\n` : `${text()}\n`);
}

function summaryText(s: merchants.MerchantSummary): string {
  return [
    `merchant           ${s.merchant_id} (${s.name})`,
    `balance            ${formatCents(s.balance_cents)} USD`,
    `overdraft          ${formatCents(s.overdraft_cents)} USD`,
    `available          ${formatCents(s.available_cents)} USD`,
    `in flight          ${formatCents(s.in_flight_cents)} USD`,
    `paid out           ${formatCents(s.paid_out_cents)} USD`,
    `card payins        ${formatCents(s.card_payins_cents)} USD`,
    `payouts must link  ${s.payouts_must_link ? 'on' : 'off'}`,
    ...s.sources.map((src) => `source             ${src.id} ${src.name}${src.revoked ? ' (revoked)' : ''}`),
  ].join('\n');
}

function sourceText(s: merchants.SourceCredentials): string {
  return [
    `source              ${s.id}`,
    `api key             ${s.api_key}`,
    `pin                 ${s.pin}`,
    `tokenization token  ${s.tokenization_token}`,
    '(shown once: only hashes are stored)',
  ].join('\n');
}

async function withService<T>(work: (service: Service, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // Commands print their results; the log only carries warnings and errors.
  const service = await createService(config, { log: createLogger(process.env.LOG_LEVEL ?? 'warn', undefined) });
  try {
    return await work(service, config);
  } finally {
    await service.db.close();
  }
}

const adminDeps = (service: Service) => ({ db: service.db, environment: service.config.environment, clock: service.clock });

export function buildProgram(): Command {
  const program = new Command('payrail')
    .description('Payrail: card payin and phone money transfer service')
    .option('--json', 'print machine-readable JSON')
    .showHelpAfterError()
    .exitOverride();

  program
    .command('serve')
    .description('start the HTTP server (and the worker unless PAYRAIL_WORKER=off)')
    .action(async () => {
      const server = await serve(loadConfig());
      await new Promise<void>((resolve) => {
        const stop = () => {
          void server.close().then(resolve);
        };
        process.once('SIGTERM', stop);
        process.once('SIGINT', stop);
      });
    });

  program
    .command('worker')
    .description('run a worker process: drives transfers and pending charges (several may share PostgreSQL)')
    .action(async () => {
      const config = loadConfig();
      const service = await createService(config);
      const worker = new Worker(createJobs(service), service.log.child({ component: 'worker' }));
      worker.start();
      service.log.info({ store: service.db.dialect }, 'worker started');
      await new Promise<void>((resolve) => {
        const stop = () => {
          void worker
            .stop()
            .then(() => service.db.close())
            .then(resolve);
        };
        process.once('SIGTERM', stop);
        process.once('SIGINT', stop);
      });
    });

  program
    .command('migrate')
    .description('apply pending schema migrations')
    .action(async (_options, command: Command) => {
      const config = loadConfig();
      const { openDb } = await import('../store/open.ts');
      const db = openDb(config);
      try {
        const applied = await db.migrate();
        output(command, { applied }, () => `applied ${applied} migration(s)`);
      } finally {
        await db.close();
      }
    });

  const merchant = program.command('merchant').description('manage merchants');
  merchant
    .command('create')
    .requiredOption('--name <name>', 'merchant name')
    .description('create a merchant with its transfer API key and a first payin source (secrets shown once)')
    .action(async (options: { name: string }, command: Command) => {
      const created = await withService((service) => merchants.createMerchant(adminDeps(service), { name: options.name }));
      output(command, created, () =>
        [`merchant id         ${created.merchant_id}`, `transfer API key    ${created.transfer_api_key}`, sourceText(created.source)].join('\n'),
      );
    });
  merchant
    .command('fund')
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--amount <dollars>', 'amount in dollars, e.g. 250.00', dollars)
    .description('operator top-up of a merchant balance')
    .action(async (options: { merchant: string; amount: number }, command: Command) => {
      const summary = await withService((service) => merchants.fundMerchant(adminDeps(service), { merchantId: options.merchant, amountCents: options.amount }));
      output(command, summary, () => summaryText(summary));
    });
  merchant
    .command('overdraft')
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--amount <dollars>', 'overdraft limit in dollars (0 for none)', dollarsOrZero)
    .description('set the overdraft limit')
    .action(async (options: { merchant: string; amount: number }, command: Command) => {
      const summary = await withService((service) => merchants.setOverdraft(adminDeps(service), { merchantId: options.merchant, overdraftCents: options.amount }));
      output(command, summary, () => summaryText(summary));
    });
  merchant
    .command('link-required')
    .requiredOption('--merchant <id>', 'merchant id')
    .option('--on', 'payouts must be linked to card payins')
    .option('--off', 'payouts need no link')
    .description('set whether payouts must be linked to payins')
    .action(async (options: { merchant: string; on?: boolean; off?: boolean }, command: Command) => {
      if (options.on === options.off) throw new UsageError('give exactly one of --on or --off');
      const summary = await withService((service) => merchants.setPayoutsMustLink(adminDeps(service), { merchantId: options.merchant, on: options.on === true }));
      output(command, summary, () => summaryText(summary));
    });
  merchant
    .command('show')
    .requiredOption('--merchant <id>', 'merchant id')
    .description('show balances, flags and sources')
    .action(async (options: { merchant: string }, command: Command) => {
      const summary = await withService((service) => merchants.showMerchant(adminDeps(service), options.merchant));
      output(command, summary, () => summaryText(summary));
    });
  merchant
    .command('rotate-key')
    .requiredOption('--merchant <id>', 'merchant id')
    .description('issue a new transfer API key; the old one fails at once')
    .action(async (options: { merchant: string }, command: Command) => {
      const rotated = await withService((service) => merchants.rotateTransferKey(adminDeps(service), { merchantId: options.merchant }));
      output(command, rotated, () => `transfer API key    ${rotated.transfer_api_key}\n(shown once: only a hash is stored)`);
    });

  const source = program.command('source').description('manage payin sources and their credentials');
  source
    .command('create')
    .requiredOption('--merchant <id>', 'merchant id')
    .option('--name <name>', 'source name', 'Source')
    .description('create a source with its API key, PIN and tokenization token (shown once)')
    .action(async (options: { merchant: string; name: string }, command: Command) => {
      const created = await withService((service) => merchants.createSource(adminDeps(service), { merchantId: options.merchant, name: options.name }));
      output(command, created, () => sourceText(created));
    });
  source
    .command('rotate')
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--source <id>', 'source id')
    .description('replace the three credentials of a source; the old ones fail at once')
    .action(async (options: { merchant: string; source: string }, command: Command) => {
      const rotated = await withService((service) => merchants.rotateSource(adminDeps(service), { merchantId: options.merchant, sourceId: options.source }));
      output(command, rotated, () => sourceText(rotated));
    });
  source
    .command('revoke')
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--source <id>', 'source id')
    .description('revoke a source and its credentials')
    .action(async (options: { merchant: string; source: string }, command: Command) => {
      const revoked = await withService((service) => merchants.revokeSource(adminDeps(service), { merchantId: options.merchant, sourceId: options.source }));
      output(command, revoked, () => `source ${revoked.id} revoked`);
    });

  const user = program.command('user').description('manage control panel users');
  user
    .command('create')
    .requiredOption('--role <role>', 'operator (sees every merchant) or merchant (sees one merchant)')
    .requiredOption('--email <email>', 'e-mail address used to sign in')
    .option('--merchant <id>', 'the merchant of a merchant user')
    .option('--password <password>', 'password (at least 12 characters); generated and printed once when omitted')
    .description('create a user of the control panel at /dashboard')
    .action(async (options: { role: string; email: string; merchant?: string; password?: string }, command: Command) => {
      const created = await withService((service) =>
        createUser({ db: service.db, clock: service.clock }, { email: options.email, role: options.role, merchantId: options.merchant, password: options.password }),
      );
      output(command, created, () =>
        [
          `user        ${created.id} (${created.role}${created.merchant_id === null ? '' : ` of ${created.merchant_id}`})`,
          `email       ${created.email}`,
          ...(created.generated_password === null ? [] : [`password    ${created.generated_password}`, '(shown once: only a hash is stored)']),
        ].join('\n'),
      );
    });

  const transfer = program.command('transfer').description('operator actions on transfers waiting for reconciliation');
  const transferText = (t: transferOps.TransferSummary) =>
    [
      `transfer    ${t.transfer_id} of ${t.merchant_id}`,
      `amount      ${formatCents(t.amount_cents)} USD`,
      `state       ${t.state} substate ${t.substate}${t.final === 1 ? ' (final)' : ''}`,
      ...(t.charge !== null ? [`card payin  ${t.charge}`] : []),
    ].join('\n');
  transfer
    .command('link')
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--transfer <id>', 'transfer id (as the merchant sent it)')
    .requiredOption('--charge <ref>', 'reference number of an approved card payin of that merchant')
    .description('link a transfer waiting for reconciliation to a card payin; it then proceeds')
    .action(async (options: { merchant: string; transfer: string; charge: string }, command: Command) => {
      const linked = await withService((service) =>
        transferOps.linkTransfer(service, { merchantId: options.merchant, transferId: options.transfer, chargeRef: options.charge }),
      );
      output(command, linked, () => transferText(linked));
    });
  transfer
    .command('cancel')
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--transfer <id>', 'transfer id (as the merchant sent it)')
    .description('cancel a waiting transfer: state 80, the amount goes back to the merchant')
    .action(async (options: { merchant: string; transfer: string }, command: Command) => {
      const cancelled = await withService((service) => transferOps.cancelTransfer(service, { merchantId: options.merchant, transferId: options.transfer }));
      output(command, cancelled, () => transferText(cancelled));
    });

  const ledger = program.command('ledger').description('ledger tools');
  ledger
    .command('verify')
    .description('recompute every balance from postings and reconcile with transfers and charges; exits 1 on any difference')
    .action(async (_options, command: Command) => {
      const report = await withService((service) => verifyLedger(service.db));
      output(command, report, () =>
        report.ok
          ? `ledger OK: ${report.accounts} accounts, ${report.postings} postings, balances equal their postings`
          : `ledger MISMATCH:\n${report.problems.map((p) => `  - ${p}`).join('\n')}`,
      );
      if (!report.ok) throw new ExitCode(1);
    });

  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof ExitCode) return error.code;
    const code = (error as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version') return 0;
    if (typeof code === 'string' && code.startsWith('commander.')) return 2; // commander already printed the problem
    const json = argv.includes('--json');
    let message: string;
    let wireCode = 'error';
    if (error instanceof ConfigError) message = error.message;
    else if (error instanceof UsageError) message = error.message;
    else if (isApiError(error)) {
      message = error.message;
      wireCode = error.code;
    } else message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(json ? `${JSON.stringify({ error: { code: wireCode, message } })}\n` : `payrail: ${message}\n`);
    return 1;
  }
}
