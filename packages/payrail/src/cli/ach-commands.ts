// `payrail ach advance`: the sandbox's ACH clock of one merchant moved
// forward by business days, and what its checks did meanwhile applied at
// once (flows/ach/sandbox-clock.ts), as `POST /sandbox/ach/advance` does for
// the merchant calling it. Production refuses it. main.ts hands in its helpers.
import { type Command, InvalidArgumentError } from 'commander';
import { type AchAdvanceResult, ACH_ADVANCE_STATES, advanceSandboxAchClock, businessDaysProblem } from '../flows/ach/sandbox-clock.ts';
import type { CliHelpers } from './security-commands.ts';

function businessDays(value: string): number {
  const n = /^[0-9]{1,3}$/.test(value) ? Number(value) : Number.NaN;
  const problem = businessDaysProblem(n);
  if (problem !== null) throw new InvalidArgumentError(problem.replace('business_days ', ''));
  return n;
}

function advanceText(merchantId: string, result: AchAdvanceResult): string {
  const moved = ACH_ADVANCE_STATES.filter((state) => result.moved[state] > 0).map((state) => `${result.moved[state]} ${state}`);
  return [
    `merchant  ${merchantId}`,
    `ach time  ${result.ach_time} (+${result.business_days} business day${result.business_days === 1 ? '' : 's'})`,
    `moved     ${moved.length === 0 ? 'nothing' : moved.join(', ')}`,
  ].join('\n');
}

export function registerAchCommands(program: Command, helpers: CliHelpers): void {
  const { withService, output } = helpers;
  const ach = program.command('ach').description('checks and ACH (sandbox tools)');
  ach
    .command('advance')
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--business-days <n>', 'business days (Monday to Friday, UTC) to move the clock forward, 1 to 30', businessDays)
    .description("sandbox only: move a merchant's ACH clock forward by business days and apply what its checks did meanwhile (originated, settled, returned)")
    .action(async (options: { merchant: string; businessDays: number }, command: Command) => {
      const result = await withService((service) => advanceSandboxAchClock(service, { merchantId: options.merchant, businessDays: options.businessDays }));
      output(command, { merchant_id: options.merchant, ...result }, () => advanceText(options.merchant, result));
    });
}
