// A merchant's surcharge settings (domain/surcharge.ts), set by the operator
// (`payrail merchant surcharge`) or the merchant's admin in the panel: one
// audited store command for the types given; the others keep theirs.
import {
  PAYMENT_TYPES,
  type PaymentType,
  parseSurchargeSetting,
  type SurchargeSetting,
  type SurchargeSettings,
  surchargeText,
} from '../../domain/surcharge.ts';
import { fail } from '../../errors.ts';
import { merchantSurchargeSettings, setSurcharges } from '../../store/merchants/surcharges.ts';
import { type AuditActor, audited, SYSTEM_ACTOR } from '../operations/audit.ts';
import type { AdminDeps } from './merchants.ts';

export type SurchargeChanges = Partial<Record<PaymentType, SurchargeSetting>>;

/** A setting from a form's type and value fields; refused (invalid_request, naming the payment type) when it is not one. */
export function surchargeSettingFrom(paymentType: PaymentType, type: string, value: string): SurchargeSetting {
  const parsed = parseSurchargeSetting(type.trim(), value.trim());
  if (!parsed.ok) fail('invalid_request', `${paymentType} surcharge: ${parsed.reason}`);
  return parsed.setting;
}

/** Sets the given types' surcharges of a merchant; answers all its settings. */
export async function changeSurcharges(
  deps: Pick<AdminDeps, 'db' | 'clock'>,
  input: { merchantId: string; changes: SurchargeChanges },
  by: AuditActor = SYSTEM_ACTOR,
): Promise<SurchargeSettings> {
  const changes = PAYMENT_TYPES.flatMap((type) => {
    const setting = input.changes[type];
    return setting === undefined ? [] : [[type, setting] as const];
  });
  if (changes.length === 0) fail('invalid_request', 'give the card or the check surcharge, or both');
  const detail = changes.map(([type, setting]) => `${type} ${surchargeText(setting)}`).join(', ');
  const event = { action: 'merchant.surcharge', target: input.merchantId, merchantId: input.merchantId, detail } as const;
  return audited(deps, by, event, async (audit) => {
    const changed = await setSurcharges(deps.db, { merchantId: input.merchantId, changes, nowMs: deps.clock.nowMs(), audit });
    if (changed.kind === 'not_found') fail('not_found', `merchant ${input.merchantId} not found`);
    return changed.settings;
  });
}

/** The merchant's settings as committed (none for a type without one); refused (not_found) for an unknown merchant. */
export async function surchargesOf(deps: Pick<AdminDeps, 'db'>, merchantId: string): Promise<SurchargeSettings> {
  const settings = await merchantSurchargeSettings(deps.db, merchantId);
  if (settings === undefined) fail('not_found', `merchant ${merchantId} not found`);
  return settings;
}
