// What each merchant role may do in the control panel, by request: viewers
// read; developers also manage keys (the credentials pages: sources, API
// keys, card-form origins) and webhook endpoints; admins do everything,
// including the team page and changing a source's wire dialect (how the
// payin API answers the shop's integration: a change can break it, so it is
// the admin's decision, not a key holder's).
// Checked on every merchant route (web/panel.ts), not just hidden in menus.

export type MerchantRoleName = 'admin' | 'developer' | 'viewer';

const DEVELOPER_WRITE_PREFIXES = ['/dashboard/credentials', '/dashboard/webhooks'];
const ADMIN_ONLY_PREFIXES = ['/dashboard/team'];
/** Paths inside the developers' prefixes that only admins may use. */
const ADMIN_ONLY_PATHS = [/^\/dashboard\/credentials\/sources\/[^/]+\/dialect$/];

function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

export function merchantRoleMay(role: MerchantRoleName, method: string, path: string): boolean {
  if (role === 'admin') return true;
  if (ADMIN_ONLY_PREFIXES.some((prefix) => under(path, prefix))) return false;
  if (ADMIN_ONLY_PATHS.some((pattern) => pattern.test(path))) return false;
  if (method === 'GET' || method === 'HEAD') return true;
  return role === 'developer' && DEVELOPER_WRITE_PREFIXES.some((prefix) => under(path, prefix));
}
