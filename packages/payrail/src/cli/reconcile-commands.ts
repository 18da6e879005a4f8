// `payrail reconcile`: reconciliation with the card processor
// (flows/operations/processor-reconciliation.ts). `processor` runs a day now
// (again, if it ran), `differences` lists what was found, `resolve` closes a
// difference with a note (audited). main.ts hands in its helpers.
import { type Command, InvalidArgumentError } from 'commander';
import { formatCents } from '../domain/money.ts';
import { fail } from '../errors.ts';
import {
  type DifferenceRow,
  defaultDay,
  listDifferences,
  parseDay,
  type ReconcileOutcome,
  reconcileDepsOf,
  reconcileProcessorDay,
  resolveProcessorDifference,
} from '../flows/operations/processor-reconciliation.ts';
import { cliActor } from './actor.ts';
import type { CliHelpers } from './security-commands.ts';

/** Differences listed by default and at most. */
const LISTED_DEFAULT = 100;
const LISTED_MAX = 1_000;

function positiveInteger(max: number) {
  return (value: string): number => {
    const n = /^[0-9]{1,12}$/.test(value) ? Number(value) : Number.NaN;
    if (!(n >= 1 && n <= max)) throw new InvalidArgumentError(`must be an integer from 1 to ${max}`);
    return n;
  };
}

const cents = (value: number | null): string => (value === null ? '-' : formatCents(value));

export function differenceLine(d: DifferenceRow): string {
  const state = d.resolved_at_ms === null ? 'open' : `resolved by ${d.resolved_by ?? '?'}: ${d.resolution_note ?? ''}`;
  return `#${d.id}  ${d.day}  ${d.kind.padEnd(20)}  payrail ${cents(d.payrail_cents)}  processor ${cents(d.processor_cents)}  ${d.detail}  [${state}]`;
}

function outcomeText(outcome: ReconcileOutcome): string {
  switch (outcome.status) {
    case 'no_settlements':
      return `card processor ${outcome.processor} lists no settlements: nothing to reconcile with`;
    case 'done':
      return [
        `reconciled ${outcome.day}: ${outcome.processorBatches} processor batch(es), ${outcome.processorTransactions} processor and ${outcome.payrailTransactions} Payrail transaction(s)`,
        `differences: ${outcome.differences} found, ${outcome.added} new, ${outcome.cleared} cleared, ${outcome.open} open${outcome.complete ? '' : ' (list cut short)'}`,
        ...(outcome.open > 0 ? ['see: payrail reconcile differences --open'] : []),
      ].join('\n');
    default:
      return JSON.stringify(outcome);
  }
}

export function registerReconcileCommands(program: Command, helpers: CliHelpers): void {
  const { withService, output } = helpers;
  const reconcile = program.command('reconcile').description("reconciliation with the card processor's settled batches");
  reconcile
    .command('processor')
    .option('--date <YYYY-MM-DD>', 'the UTC day to reconcile (default: yesterday)')
    .description(
      "compare the processor's settled batches of a day with Payrail's settled transactions and record every difference (a re-run replaces the day's open ones)",
    )
    .action(async (options: { date?: string }, command: Command) => {
      const outcome = await withService(async (service) => {
        const nowMs = service.clock.nowMs();
        const day = options.date === undefined ? defaultDay(nowMs) : parseDay(options.date, nowMs);
        return reconcileProcessorDay(reconcileDepsOf(service), { day, force: true });
      });
      if (outcome.status === 'failed') fail('service_unavailable', `reconciliation of ${outcome.day} failed: ${outcome.error}`);
      if (outcome.status === 'skipped') fail('invalid_state', `another run is reconciling ${outcome.day}; try again when it ends`);
      output(command, outcome, () => outcomeText(outcome));
    });
  reconcile
    .command('differences')
    .option('--open', 'only open differences')
    .option('--resolved', 'only resolved differences')
    .option('--date <YYYY-MM-DD>', 'only differences of this day')
    .option('--limit <n>', `at most this many (default ${LISTED_DEFAULT}, at most ${LISTED_MAX})`, positiveInteger(LISTED_MAX))
    .description('list differences found by reconciliation, newest first')
    .action(async (options: { open?: boolean; resolved?: boolean; date?: string; limit?: number }, command: Command) => {
      if (options.open === true && options.resolved === true) throw helpers.usage('--open and --resolved exclude each other');
      const open = options.open === true ? true : options.resolved === true ? false : null;
      const rows = await withService(async (service) => {
        const day = options.date === undefined ? null : parseDay(options.date, service.clock.nowMs());
        return listDifferences(service, { filters: { open, day }, limit: options.limit ?? LISTED_DEFAULT, offset: 0 });
      });
      output(command, { differences: rows }, () => (rows.length === 0 ? 'no difference' : rows.map(differenceLine).join('\n')));
    });
  reconcile
    .command('resolve')
    .requiredOption('--id <n>', 'the difference (its # in `payrail reconcile differences`)', positiveInteger(Number.MAX_SAFE_INTEGER))
    .requiredOption('--note <text>', 'what was found and done (kept with the difference and in the audit trail)')
    .description('mark an open difference resolved, with a note; audited')
    .action(async (options: { id: number; note: string }, command: Command) => {
      const row = await withService((service) => resolveProcessorDifference(service, { id: options.id, note: options.note }, cliActor()));
      output(command, row, () => differenceLine(row));
    });
}
