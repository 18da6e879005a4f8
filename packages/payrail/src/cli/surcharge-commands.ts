// `payrail merchant surcharge`: the operator sets a merchant's surcharge per
// payment type (domain/surcharge.ts), or shows it with neither option.
// main.ts hands in its helpers.
import type { Command } from 'commander';
import { parseSurchargeOption, type SurchargeSetting, type SurchargeSettings, surchargeText, surchargeWire } from '../domain/surcharge.ts';
import { changeSurcharges, type SurchargeChanges, surchargesOf } from '../flows/merchants/surcharges.ts';
import { cliActor } from './actor.ts';
import type { CliHelpers } from './security-commands.ts';

const FORMS = 'percent:VALUE (e.g. percent:3.5), currency:DOLLARS (e.g. currency:1.00) or none';

export function registerSurchargeCommand(merchant: Command, helpers: CliHelpers): void {
  const { withService, output, usage } = helpers;
  const settingOf = (option: string, text: string | undefined): SurchargeSetting | undefined => {
    if (text === undefined) return undefined;
    const parsed = parseSurchargeOption(text);
    if (!parsed.ok) throw usage(`${option}: ${parsed.reason}`);
    return parsed.setting;
  };
  merchant
    .command('surcharge')
    .requiredOption('--merchant <id>', 'merchant id')
    .option('--card <setting>', `surcharge of card charges: ${FORMS}`)
    .option('--check <setting>', `surcharge of check charges: ${FORMS}`)
    .description('set the surcharge each charge adds, per payment type; without --card or --check, show it')
    .action(async (options: { merchant: string; card?: string; check?: string }, command: Command) => {
      const changes: SurchargeChanges = { card: settingOf('--card', options.card), check: settingOf('--check', options.check) };
      const settings: SurchargeSettings = await withService((service) =>
        changes.card === undefined && changes.check === undefined
          ? surchargesOf(service, options.merchant)
          : changeSurcharges(service, { merchantId: options.merchant, changes }, cliActor()),
      );
      output(command, { merchant_id: options.merchant, card: surchargeWire(settings.card), check: surchargeWire(settings.check) }, () =>
        [`card surcharge      ${surchargeText(settings.card)}`, `check surcharge     ${surchargeText(settings.check)}`].join('\n'),
      );
    });
}
