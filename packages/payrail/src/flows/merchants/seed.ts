// First run in the sandbox: one demo merchant with a funded balance, so a
// newcomer can make a first call within a minute. Runs only on an empty store.
import type { Service } from '../../service.ts';
import { hasMerchants } from '../../store/merchants/list.ts';
import { createMerchant, fundMerchant, issuingDeps, type CreatedMerchant } from './merchants.ts';

export const DEMO_FUNDING_CENTS = 1_000_000; // 10,000.00 USD of sandbox money

export async function seedDemoMerchant(service: Service): Promise<CreatedMerchant | null> {
  if (service.config.environment !== 'sandbox') return null;
  if (await hasMerchants(service.db)) return null;
  const deps = issuingDeps(service);
  const merchant = await createMerchant(deps, { name: 'Demo merchant' });
  await fundMerchant(deps, { merchantId: merchant.merchant_id, amountCents: DEMO_FUNDING_CENTS });
  return merchant;
}

export function demoBanner(merchant: CreatedMerchant, publicUrl: string): string {
  return [
    '',
    '  Payrail sandbox is seeded with a demo merchant (shown once; keep these):',
    `    merchant id         ${merchant.merchant_id}`,
    `    transfer API key    ${merchant.transfer_api_key}`,
    `    payin source        ${merchant.source.id}`,
    `    source API key      ${merchant.source.api_key}`,
    `    source PIN          ${merchant.source.pin}`,
    `    tokenization token  ${merchant.source.tokenization_token}`,
    '',
    '  Try it:',
    `    curl -H "API-KEY: ${merchant.transfer_api_key}" ${publicUrl}/api/agent_balance`,
    '',
  ].join('\n');
}
