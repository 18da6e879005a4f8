// `payrail transfers reversals` and `payrail transfers reversal
// report|confirm|reject`: reversals of completed payouts
// (flows/transfers/reversals.ts). Listing reads; the three actions are
// audited with the operating-system account that ran them. main.ts hands in
// the `transfer` command (also spelled `transfers`) and its helpers.
import { type Command, InvalidArgumentError, Option } from 'commander';
import { formatCents } from '../domain/money.ts';
import { isReversalState, REVERSAL_STATES, REVERSALS_LISTED_DEFAULT, REVERSALS_LISTED_MAX } from '../domain/transfer-reversals.ts';
import { confirmReversal, listTransferReversals, rejectReversal, reportReversalByOperator, type ReversalView } from '../flows/transfers/reversals.ts';
import { cliActor } from './actor.ts';
import type { CliHelpers } from './security-commands.ts';

function listLimit(value: string): number {
  const n = /^[0-9]{1,6}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= 1 && n <= REVERSALS_LISTED_MAX)) throw new InvalidArgumentError(`must be an integer from 1 to ${REVERSALS_LISTED_MAX}`);
  return n;
}

export function reversalLine(r: ReversalView): string {
  const decided = r.decided_at === null ? '' : `  ${r.state} ${r.decided_at} by ${r.decided_by ?? '?'}${r.note === null ? '' : `: ${r.note}`}`;
  const reason = r.error_code === '' ? r.error_text : `${r.error_code} ${r.error_text}`;
  return `${r.merchant_id}  transfer ${r.transfer_id}  ${formatCents(r.amount_cents)} USD  [${r.state}]  reported ${r.reported_at} by ${r.reported_by}: ${reason}${decided}`;
}

/** The transfer a reversal command acts on: --merchant and --transfer (or --id, the same). */
interface TargetOptions {
  merchant: string;
  transfer?: string;
  id?: string;
}

function withTarget(command: Command): Command {
  return command
    .requiredOption('--merchant <id>', 'merchant id')
    .option('--transfer <id>', 'transfer id (as the merchant sent it)')
    .addOption(new Option('--id <id>', 'the same as --transfer').hideHelp());
}

export function registerReversalCommands(transfer: Command, helpers: CliHelpers): void {
  const { withService, output } = helpers;
  const target = (options: TargetOptions) => {
    const transferId = options.transfer ?? options.id;
    if (transferId === undefined) throw helpers.usage('name the transfer with --transfer <id>');
    if (options.transfer !== undefined && options.id !== undefined && options.transfer !== options.id) throw helpers.usage('--transfer and --id differ');
    return { merchantId: options.merchant, transferId };
  };

  transfer
    .command('reversals')
    .option('--state <state>', `only reversals in this state (${REVERSAL_STATES.join(', ')})`)
    .option('--limit <n>', `at most this many (default ${REVERSALS_LISTED_DEFAULT}, at most ${REVERSALS_LISTED_MAX})`, listLimit)
    .description('list reversals of completed payouts, newest report first')
    .action(async (options: { state?: string; limit?: number }, command: Command) => {
      if (options.state !== undefined && !isReversalState(options.state)) throw helpers.usage(`--state must be one of ${REVERSAL_STATES.join(', ')}`);
      const state = options.state ?? null;
      const rows = await withService((service) => listTransferReversals(service, { state, limit: options.limit ?? REVERSALS_LISTED_DEFAULT }));
      output(command, { reversals: rows }, () => (rows.length === 0 ? 'no reversal' : rows.map(reversalLine).join('\n')));
    });

  const reversal = transfer.command('reversal').description('report, confirm or reject the reversal of a completed payout (audited)');
  withTarget(reversal.command('report'))
    .requiredOption('--reason <text>', 'what the network reported (kept with the reversal and in the audit trail)')
    .option('--code <code>', "the network's reason code, if it gave one")
    .description('record a reversal the payout network reported outside Payrail; it then awaits confirmation (no money moves yet)')
    .action(async (options: TargetOptions & { reason: string; code?: string }, command: Command) => {
      const input = { ...target(options), reason: options.reason, ...(options.code === undefined ? {} : { code: options.code }) };
      const row = await withService((service) => reportReversalByOperator(service, input, cliActor()));
      output(command, row, () => reversalLine(row));
    });
  withTarget(reversal.command('confirm'))
    .option('--reason <text>', 'a note kept with the decision')
    .description("confirm a reported reversal: the transfer's amount goes back to the merchant's available balance, once")
    .action(async (options: TargetOptions & { reason?: string }, command: Command) => {
      const input = { ...target(options), ...(options.reason === undefined ? {} : { note: options.reason }) };
      const row = await withService((service) => confirmReversal(service, input, cliActor()));
      output(command, row, () => reversalLine(row));
    });
  withTarget(reversal.command('reject'))
    .requiredOption('--reason <text>', 'why the reversal is rejected (kept with it and in the audit trail)')
    .description('reject a reported reversal: no money moves and the transfer no longer shows it')
    .action(async (options: TargetOptions & { reason: string }, command: Command) => {
      const row = await withService((service) => rejectReversal(service, { ...target(options), reason: options.reason }, cliActor()));
      output(command, row, () => reversalLine(row));
    });
}
