// The `payrail` command. Every command accepts --json for scripts; errors go
// to stderr with a non-zero exit code. Store commands work on the same store
// as a running server (same PAYRAIL_DATA_DIR or DATABASE_URL).
import { Command, InvalidArgumentError } from 'commander';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { type AmountParse, formatCents, parseDollarString, parseDollarStringOrZero } from '../domain/money.ts';
import { isWireDialect, WIRE_DIALECTS, type WireDialect } from '../domain/wire-dialect.ts';
import { closeOpenBatches } from '../flows/payin/batches.ts';
import { storeEngine } from '../flows/operations/health.ts';
import { verifyLedger } from '../flows/operations/ledger-verify.ts';
import { listAllMerchants, MERCHANT_LIST_LIMIT_MAX } from '../flows/merchants/list.ts';
import * as merchants from '../flows/merchants/merchants.ts';
import { createUser } from '../flows/panel/users.ts';
import * as transferOps from '../flows/transfers/operator.ts';
import { createLogger } from '../log.ts';
import { createService, migrateStore } from '../runtime.ts';
import type { Service } from '../service.ts';
import { openReadOnlyDb, StoreUnavailableError, storeLocation } from '../store-access.ts';
import { PAYRAIL_VERSION } from '../version.ts';
import { describeFailure, failureJson, failureText, inStore, StoreCommandError } from './failure.ts';
import { cliActor } from './actor.ts';
import { registerAchCommands } from './ach-commands.ts';
import { registerKeyCommands } from './key-commands.ts';
import { registerOnboardingCommands } from './onboarding-commands.ts';
import { registerAuditCommand, registerOriginsCommand, registerUserAdminCommands } from './security-commands.ts';
import { registerReconcileCommands } from './reconcile-commands.ts';
import { registerReversalCommands } from './reversal-commands.ts';
import { registerSurchargeCommand } from './surcharge-commands.ts';
import { registerWebhookCommands } from './webhook-commands.ts';

/** A command line that cannot be carried out as written. */
class UsageError extends Error {}

/** Raised by a command to exit non-zero after printing its own result. */
class ExitCode extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

function cents(parsed: AmountParse): number {
  if (!parsed.ok) throw new InvalidArgumentError(`amount ${parsed.reason} (for example 250.00)`);
  return parsed.cents;
}

const dollars = (value: string): number => cents(parseDollarString(value));

/** A --dialect option: spec or acceptblue (domain/wire-dialect.ts). */
function dialectOption(value: string): WireDialect {
  if (!isWireDialect(value)) throw new InvalidArgumentError(`must be ${WIRE_DIALECTS.join(' or ')}`);
  return value;
}
const dollarsOrZero = (value: string): number => cents(parseDollarStringOrZero(value));

interface GlobalOptions {
  json?: boolean;
}

/**
 * Where a command reads its settings and writes its results: the process's
 * own environment and streams, or (in tests) given ones, so a command can run
 * in-process exactly as it runs from a shell.
 */
export interface CliIo {
  readonly env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
}

const processIo: CliIo = {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

function outputTo(io: CliIo) {
  return (command: Command, json: unknown, text: () => string): void => {
    const { json: asJson } = command.optsWithGlobals<GlobalOptions>();
    io.stdout(asJson ? `${JSON.stringify(json)}\n` : `${text()}\n`);
  };
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
    `reference cards    ${s.keeps_reference_cards ? 'kept 13 months' : 'kept 24 hours unless saved'}`,
    ...s.sources.map((src) => `source             ${src.id} ${src.name} (dialect ${src.dialect})${src.revoked ? ' (revoked)' : ''}`),
  ].join('\n');
}

function sourceText(s: merchants.SourceCredentials): string {
  return [
    `source              ${s.id}`,
    `dialect             ${s.dialect}`,
    `api key             ${s.api_key}`,
    `pin                 ${s.pin}`,
    `tokenization token  ${s.tokenization_token}`,
    '(shown once: only hashes are stored)',
  ].join('\n');
}

/**
 * Runs a store command; its errors name the store. `readOnly` commands open
 * the store read-only: they never create a data directory, migrate or write.
 */
function withServiceOf(io: CliIo) {
  return async function withService<T>(work: (service: Service, config: Config) => Promise<T>, options: { readOnly?: boolean } = {}): Promise<T> {
    const config = loadConfig(io.env);
    return inStore(storeLocation(config), async () => {
      const db = options.readOnly === true ? await openReadOnlyDb(config) : undefined;
      // Commands print their results; the log only carries warnings and errors.
      const service = await createService(config, { log: createLogger(io.env.LOG_LEVEL ?? 'warn', undefined), ...(db === undefined ? {} : { db }) });
      try {
        return await work(service, config);
      } finally {
        await service.db.close();
      }
    });
  };
}

/** A --limit of a list command. */
function listLimit(value: string): number {
  const limit = /^[0-9]{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(limit >= 1 && limit <= MERCHANT_LIST_LIMIT_MAX)) throw new InvalidArgumentError(`must be an integer from 1 to ${MERCHANT_LIST_LIMIT_MAX}`);
  return limit;
}

/**
 * Open differences with the card processor are said beside the ledger's
 * result, never as a failure of it: the ledger agrees with itself; Payrail
 * and the processor disagree on what settled, which an operator looks into.
 */
function processorDifferencesNote(open: number): string {
  return `note: ${open} open difference(s) with the card processor's settlements (not a ledger imbalance): payrail reconcile differences --open`;
}

const adminDeps = (service: Service) => merchants.issuingDeps(service);

export function buildProgram(io: CliIo = processIo): Command {
  const output = outputTo(io);
  const withService = withServiceOf(io);
  const program = new Command('payrail')
    .configureOutput({ writeOut: (text) => io.stdout(text), writeErr: (text) => io.stderr(text) })
    .description('Payrail: card payin and phone money transfer service')
    .version(PAYRAIL_VERSION, '-V, --version', 'print the version of payrail')
    .option('--json', 'print machine-readable JSON')
    .showHelpAfterError()
    .exitOverride();

  program
    .command('serve')
    .description('start the HTTP server (and the worker unless PAYRAIL_WORKER=off)')
    .action(async () => {
      const config = loadConfig(io.env);
      // Loaded here, not at the top: the HTTP server and its routes are most of
      // the command's start-up time, and no other command needs them.
      const { serve } = await import('../http/server.ts');
      const server = await inStore(storeLocation(config), () => serve(config));
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
      const config = loadConfig(io.env);
      const service = await inStore(storeLocation(config), () => createService(config));
      const [{ createJobs }, { createWebhookWorker }, { Worker }] = await Promise.all([
        import('../worker/jobs.ts'),
        import('../worker/webhook-worker.ts'),
        import('../worker/worker.ts'),
      ]);
      const worker = new Worker(createJobs(service), service.log.child({ component: 'worker' }));
      const webhooks = createWebhookWorker(service);
      worker.start();
      webhooks.start();
      service.log.info({ store: storeEngine(service) }, 'worker started');
      await new Promise<void>((resolve) => {
        const stop = () => {
          void Promise.all([worker.stop(), webhooks.stop()])
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
      const config = loadConfig(io.env);
      const applied = await inStore(storeLocation(config), () => migrateStore(config));
      output(command, { applied }, () => `applied ${applied} migration(s)`);
    });

  const merchant = program.command('merchant').description('manage merchants');
  merchant
    .command('create')
    .requiredOption('--name <name>', 'merchant name')
    .option('--dialect <dialect>', `wire dialect of its first source: ${WIRE_DIALECTS.join(' or ')} (default spec)`, dialectOption)
    .description('create a merchant with its transfer API key and a first payin source (secrets shown once)')
    .action(async (options: { name: string; dialect?: WireDialect }, command: Command) => {
      const created = await withService((service) =>
        merchants.createMerchant(adminDeps(service), { name: options.name, dialect: options.dialect }, cliActor()),
      );
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
      const summary = await withService((service) =>
        merchants.fundMerchant(adminDeps(service), { merchantId: options.merchant, amountCents: options.amount }, cliActor()),
      );
      output(command, summary, () => summaryText(summary));
    });
  merchant
    .command('overdraft')
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--amount <dollars>', 'overdraft limit in dollars (0 for none)', dollarsOrZero)
    .description('set the overdraft limit')
    .action(async (options: { merchant: string; amount: number }, command: Command) => {
      const summary = await withService((service) =>
        merchants.setOverdraft(adminDeps(service), { merchantId: options.merchant, overdraftCents: options.amount }, cliActor()),
      );
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
      const summary = await withService((service) =>
        merchants.setPayoutsMustLink(adminDeps(service), { merchantId: options.merchant, on: options.on === true }, cliActor()),
      );
      output(command, summary, () => summaryText(summary));
    });
  merchant
    .command('reference-cards')
    .requiredOption('--merchant <id>', 'merchant id')
    .option('--on', "approved charges keep their card 13 months for later ref- charges (accept.blue's reference charges)")
    .option('--off', 'only charges with save_card or a saved-card token keep their card 13 months; others 24 hours')
    .description('set how long the card of an approved charge stays usable by ref- charges')
    .action(async (options: { merchant: string; on?: boolean; off?: boolean }, command: Command) => {
      if (options.on === options.off) throw new UsageError('give exactly one of --on or --off');
      const summary = await withService((service) =>
        merchants.setKeepsReferenceCards(adminDeps(service), { merchantId: options.merchant, on: options.on === true }, cliActor()),
      );
      output(command, summary, () => summaryText(summary));
    });
  merchant
    .command('show')
    .requiredOption('--merchant <id>', 'merchant id')
    .description('show balances, flags and sources')
    .action(async (options: { merchant: string }, command: Command) => {
      const summary = await withService((service) => merchants.showMerchant(adminDeps(service), options.merchant), { readOnly: true });
      output(command, summary, () => summaryText(summary));
    });
  merchant
    .command('list')
    .option('--limit <n>', `at most this many merchants (1 to ${MERCHANT_LIST_LIMIT_MAX})`, listLimit)
    .option('--after <id>', 'start after this merchant id (the last of a previous list)')
    .description('list merchants, oldest first, with balance, overdraft and available funds')
    .action(async (options: { limit?: number; after?: string }, command: Command) => {
      const listed = await withService((service) => listAllMerchants(service.db, { limit: options.limit, after: options.after ?? null }), { readOnly: true });
      output(command, listed, () =>
        [
          ...listed.merchants.map(
            (m) =>
              `${m.merchant_id}  ${formatCents(m.balance_cents).padStart(14)} USD  overdraft ${formatCents(m.overdraft_cents).padStart(10)}  available ${formatCents(m.available_cents).padStart(14)}  ${m.name}`,
          ),
          listed.merchants.length === 0 ? 'no merchants' : `${listed.merchants.length} merchant(s)`,
          ...(listed.has_more ? [`more follow: payrail merchant list --after ${listed.merchants.at(-1)!.merchant_id}`] : []),
        ].join('\n'),
      );
    });
  merchant
    .command('rotate-key')
    .requiredOption('--merchant <id>', 'merchant id')
    .description('issue a new transfer API key; the old one fails at once')
    .action(async (options: { merchant: string }, command: Command) => {
      const rotated = await withService((service) => merchants.rotateTransferKey(adminDeps(service), { merchantId: options.merchant }, cliActor()));
      output(command, rotated, () => `transfer API key    ${rotated.transfer_api_key}\n(shown once: only a hash is stored)`);
    });

  const source = program.command('source').description('manage payin sources and their credentials');
  source
    .command('create')
    .requiredOption('--merchant <id>', 'merchant id')
    .option('--name <name>', 'source name', 'Source')
    .option('--dialect <dialect>', `wire dialect: ${WIRE_DIALECTS.join(' or ')} (default spec)`, dialectOption)
    .description('create a source with its API key, PIN and tokenization token (shown once)')
    .action(async (options: { merchant: string; name: string; dialect?: WireDialect }, command: Command) => {
      const created = await withService((service) =>
        merchants.createSource(adminDeps(service), { merchantId: options.merchant, name: options.name, dialect: options.dialect }, cliActor()),
      );
      output(command, created, () => sourceText(created));
    });
  source
    .command('dialect')
    .requiredOption('--source <id>', 'source id')
    .requiredOption('--set <dialect>', `how the payin API answers this source's key: ${WIRE_DIALECTS.join(' or ')}`, dialectOption)
    .description("set a source's wire dialect (spec: the interface spec's answers; acceptblue: accept.blue v2's); effective at its next request")
    .action(async (options: { source: string; set: WireDialect }, command: Command) => {
      const set = await withService((service) =>
        merchants.setSourceDialect(adminDeps(service), { sourceId: options.source, merchantId: null, dialect: options.set }, cliActor()),
      );
      output(command, set, () => `source ${set.id} of ${set.merchant_id}: dialect ${set.dialect}${set.changed ? '' : ' (unchanged)'}`);
    });
  source
    .command('rotate')
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--source <id>', 'source id')
    .description('replace the three credentials of a source; the old ones fail at once')
    .action(async (options: { merchant: string; source: string }, command: Command) => {
      const rotated = await withService((service) =>
        merchants.rotateSource(adminDeps(service), { merchantId: options.merchant, sourceId: options.source }, cliActor()),
      );
      output(command, rotated, () => sourceText(rotated));
    });
  source
    .command('revoke')
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--source <id>', 'source id')
    .description('revoke a source and its credentials')
    .action(async (options: { merchant: string; source: string }, command: Command) => {
      const revoked = await withService((service) =>
        merchants.revokeSource(adminDeps(service), { merchantId: options.merchant, sourceId: options.source }, cliActor()),
      );
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
        createUser(service, { email: options.email, role: options.role, merchantId: options.merchant, password: options.password }, cliActor()),
      );
      output(command, created, () =>
        [
          `user        ${created.id} (${created.role}${created.merchant_id === null ? '' : ` of ${created.merchant_id}`})`,
          `email       ${created.email}`,
          ...(created.generated_password === null ? [] : [`password    ${created.generated_password}`, '(shown once: only a hash is stored)']),
        ].join('\n'),
      );
    });

  const securityHelpers = { withService, output, stderr: io.stderr, env: io.env, usage: (message: string) => new UsageError(message) };
  registerUserAdminCommands(user, securityHelpers);
  registerOriginsCommand(source, securityHelpers);
  registerAuditCommand(program, securityHelpers);
  registerOnboardingCommands(program, merchant, securityHelpers);
  registerWebhookCommands(program, securityHelpers);
  registerSurchargeCommand(merchant, securityHelpers);
  registerReconcileCommands(program, securityHelpers);
  registerAchCommands(program, securityHelpers);
  registerKeyCommands(program, securityHelpers);

  const transfer = program
    .command('transfer')
    .alias('transfers')
    .description('operator actions on transfers: waiting for reconciliation (link, cancel), reversals of completed payouts');
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
        transferOps.linkTransfer(service, { merchantId: options.merchant, transferId: options.transfer, chargeRef: options.charge }, cliActor()),
      );
      output(command, linked, () => transferText(linked));
    });
  transfer
    .command('cancel')
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--transfer <id>', 'transfer id (as the merchant sent it)')
    .description('cancel a waiting transfer: state 80, the amount goes back to the merchant')
    .action(async (options: { merchant: string; transfer: string }, command: Command) => {
      const cancelled = await withService((service) =>
        transferOps.cancelTransfer(service, { merchantId: options.merchant, transferId: options.transfer }, cliActor()),
      );
      output(command, cancelled, () => transferText(cancelled));
    });

  registerReversalCommands(transfer, securityHelpers);

  const batch = program.command('batch').description('settlement batches of card transactions');
  batch
    .command('close')
    .option('--merchant <id>', 'only this merchant (default: every merchant)')
    .description('close open settlement batches now: their captured transactions become settled (as the daily close does)')
    .action(async (options: { merchant?: string }, command: Command) => {
      const closed = await withService((service) => closeOpenBatches(service, options.merchant ?? null));
      output(command, { batches: closed }, () =>
        closed.length === 0
          ? 'no open batch'
          : closed.map((b) => `batch ${b.id} closed: ${b.transaction_count} transaction(s), net ${b.net_amount.toFixed(2)} USD`).join('\n'),
      );
    });

  const ledger = program.command('ledger').description('ledger tools');
  ledger
    .command('verify')
    .description(
      'recompute every balance from postings and reconcile with transfers and charges; exits 1 on any difference (open differences with the card processor are reported, not failed)',
    )
    .action(async (_options, command: Command) => {
      const report = await withService((service) => verifyLedger(service.db), { readOnly: true });
      output(command, report, () =>
        [
          report.ok
            ? `ledger OK: ${report.accounts} accounts, ${report.postings} postings, balances equal their postings`
            : `ledger MISMATCH:\n${report.problems.map((p) => `  - ${p}`).join('\n')}`,
          ...(report.openProcessorDifferences === 0 ? [] : [processorDifferencesNote(report.openProcessorDifferences)]),
        ].join('\n'),
      );
      if (!report.ok) throw new ExitCode(1);
    });

  return program;
}

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    const cause = error instanceof StoreCommandError ? error.failure : error;
    if (cause instanceof ExitCode) return cause.code;
    const code = (cause as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version') return 0;
    if (typeof code === 'string' && code.startsWith('commander.')) return 2; // commander already printed the problem
    const failure = describeFailure(error, (e) => e instanceof ConfigError || e instanceof UsageError || e instanceof StoreUnavailableError, io.env.LOG_LEVEL);
    io.stderr(argv.includes('--json') ? failureJson(failure) : failureText(failure));
    return 1;
  }
}
