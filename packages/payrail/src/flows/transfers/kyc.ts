// KYC look-up (docs/interface-spec.md section 2.8): the receiver's verification status and the most
// they may receive per transfer. The path carries E.164 digits without the
// plus; a plus is tolerated. A look-up provider (the sandbox, modules) is
// asked; with a provider verifying in sessions (Veriff) the answer is what
// Payrail kept, with a session link to verify at (kyc-sessions.ts).
import { formatCents } from '../../domain/money.ts';
import { parsePhone } from '../../domain/phone.ts';
import { fail } from '../../errors.ts';
import type { KycStatus } from '../../providers/kyc.ts';
import type { Service } from '../../service.ts';
import { kycDepsOf, sessionKycStatus } from './kyc-sessions.ts';
import { receiverKyc, receiverOnNetwork } from './lookups.ts';

export interface KycView {
  readonly kyc_verify: boolean;
  readonly money_limit: string;
  readonly kyc_url: string;
}

/** Parses a receiver account from a path: E.164 digits, with or without the plus. */
export function parseAccount(service: Service, account: string): string {
  const digits = account.startsWith('+') ? account.slice(1) : account;
  if (!/^[0-9]{1,20}$/.test(digits)) fail('invalid_phone_number', 'account must be the receiver phone in E.164 digits without +, e.g. 254712345678');
  const phone = parsePhone(`+${digits}`, 'US');
  if (!phone.ok) fail('invalid_phone_number', `account ${phone.reason}`);
  // Only corridor countries have wallets on the payout network.
  if (!service.corridors.corridors.some((corridor) => corridor.country === phone.country)) {
    fail('account_not_found', `no receiver account for ${digits}: no corridor serves ${phone.country}`);
  }
  return phone.e164;
}

export async function kycStatus(service: Service, account: string): Promise<KycView> {
  const phone = parseAccount(service, account);
  const kyc = service.providers.kyc;
  let status: KycStatus | null;
  if (kyc.kind === 'sessions') {
    // Only a receiver the payout network knows has anything to verify: ask the network of a corridor of the phone's country.
    const parsed = parsePhone(phone, 'US');
    const corridor = service.corridors.corridors.find((candidate) => parsed.ok && candidate.country === parsed.country);
    // parseAccount found one already; a table without one answers as parseAccount does.
    if (corridor === undefined) return fail('account_not_found', `no receiver account for ${phone.slice(1)}`);
    const { registered } = await receiverOnNetwork(service.providers, phone, corridor);
    status = registered ? await sessionKycStatus(kycDepsOf(service), kyc, phone) : null;
  } else {
    status = await receiverKyc(kyc, phone);
  }
  if (status === null) fail('account_not_found', `no receiver account for ${phone.slice(1)}`);
  return {
    kyc_verify: status.verified,
    money_limit: status.moneyLimitCents === 0 ? '0' : formatCents(status.moneyLimitCents),
    kyc_url: status.kycUrl,
  };
}
