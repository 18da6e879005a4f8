// The panel's credential actions for a merchant user: making, rotating and
// revoking source keys and rotating the transfer key, each refused to a role
// without money power (domain/panel-permissions.ts says why). The merchant
// role hook refuses these paths first; this check keeps the rule with the
// action, so a new route to it cannot forget it.
import type { AuditActor } from '../../domain/audit.ts';
import { type MerchantRoleName, merchantRoleHasMoneyPower } from '../../domain/panel-permissions.ts';
import type { WireDialect } from '../../domain/wire-dialect.ts';
import { fail } from '../../errors.ts';
import { createSource, type IssuingDeps, revokeSource, rotateSource, rotateTransferKey } from '../merchants/merchants.ts';
import { recordAudit } from '../operations/audit.ts';

/** Who acts in the panel: the audit actor and their merchant role. */
export interface PanelMember {
  readonly actor: AuditActor;
  readonly role: MerchantRoleName;
}

async function requireMoneyPower(
  deps: IssuingDeps,
  by: PanelMember,
  event: { action: 'source.create' | 'source.rotate' | 'source.revoke' | 'transfer_key.rotate'; target: string | null; merchantId: string },
): Promise<void> {
  if (merchantRoleHasMoneyPower(by.role)) return;
  await recordAudit(deps, by.actor, { ...event, detail: `role ${by.role} has no money power` }, 'denied');
  fail('permission_denied', `Your role (${by.role}) cannot make or change keys that move money. Ask an admin of your merchant.`);
}

export async function createSourceAs(deps: IssuingDeps, input: { merchantId: string; name: string; dialect: WireDialect }, by: PanelMember) {
  await requireMoneyPower(deps, by, { action: 'source.create', target: null, merchantId: input.merchantId });
  return createSource(deps, input, by.actor);
}

export async function rotateSourceAs(deps: IssuingDeps, input: { merchantId: string; sourceId: string }, by: PanelMember) {
  await requireMoneyPower(deps, by, { action: 'source.rotate', target: input.sourceId, merchantId: input.merchantId });
  return rotateSource(deps, input, by.actor);
}

export async function revokeSourceAs(deps: IssuingDeps, input: { merchantId: string; sourceId: string }, by: PanelMember) {
  await requireMoneyPower(deps, by, { action: 'source.revoke', target: input.sourceId, merchantId: input.merchantId });
  return revokeSource(deps, input, by.actor);
}

export async function rotateTransferKeyAs(deps: IssuingDeps, input: { merchantId: string }, by: PanelMember) {
  await requireMoneyPower(deps, by, { action: 'transfer_key.rotate', target: input.merchantId, merchantId: input.merchantId });
  return rotateTransferKey(deps, input, by.actor);
}
