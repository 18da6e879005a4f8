// What each merchant role may do in the control panel, by request. Roles
// hold powers:
// - viewer: reads;
// - developer: reads, and wires the integration up without being able to
//   move money: webhook endpoints and the page origins of the card form;
// - admin: everything, and alone holds the powers below.
// Money power: a source's API key and PIN can charge, capture, void and
// refund, and the transfer key pays out, so making, rotating or revoking a
// credential is a money action like a refund in the panel: only a role that
// may do those may make keys that do them (a developer who could mint a key
// and PIN could void and refund through the API what the panel refuses it).
// Keys carry no narrower scopes: shop plugins written for accept.blue use
// one key for every payin call. Also the admin's alone: the team page, a
// source's wire dialect (how the payin API answers the shop's integration: a
// change can break it) and every other change a path below does not grant.
// Checked on every merchant route (web/panel.ts), not just hidden in menus;
// the panel flows that issue credentials check it again
// (flows/panel/credential-actions.ts).

export type MerchantRoleName = 'admin' | 'developer' | 'viewer';

/** Paths no role but admin may even read. */
const ADMIN_ONLY_PREFIXES = ['/dashboard/team'];

/** Changes a developer may make: they wire the integration up, and none makes or changes a key. */
const DEVELOPER_WRITES = [/^\/dashboard\/webhooks(\/.*)?$/, /^\/dashboard\/credentials\/sources\/[^/]+\/origins(\/remove)?$/];

function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

export function merchantRoleMay(role: MerchantRoleName, method: string, path: string): boolean {
  if (role === 'admin') return true;
  if (ADMIN_ONLY_PREFIXES.some((prefix) => under(path, prefix))) return false;
  if (method === 'GET' || method === 'HEAD') return true;
  return role === 'developer' && DEVELOPER_WRITES.some((pattern) => pattern.test(path));
}

/**
 * Whether the role may do money actions, in the panel and through keys it
 * makes: charge actions, and making, rotating or revoking source keys and the
 * transfer key.
 */
export function merchantRoleHasMoneyPower(role: MerchantRoleName): boolean {
  return role === 'admin';
}
