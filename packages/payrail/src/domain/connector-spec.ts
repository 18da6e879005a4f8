// Which connector modules configuration may name (docs/api-decisions.md
// section 1). A connector is code Payrail imports and runs, so it may come
// only from the machine's own files or installed packages: an absolute path,
// a ./ or ../ relative path, or a bare package name. Anything with a scheme
// (`data:`, `http:`, `file:`, `node:`) is refused, so a configuration value
// can never carry code of its own or fetch it from elsewhere.

/** npm package names (optionally scoped), optionally followed by a subpath of plain segments. */
const BARE_PACKAGE = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*(\/[A-Za-z0-9._~-]+)*$/;
/** Longer configuration values are not module names. */
const SPEC_LENGTH_MAX = 1024;

/** The problem with a connector module name, or null when it may be loaded. `sandbox` names the simulator. */
export function connectorSpecProblem(spec: string): string | null {
  if (spec === 'sandbox') return null;
  if (spec.length === 0 || spec.length > SPEC_LENGTH_MAX) return `must be a module path or package name of at most ${SPEC_LENGTH_MAX} characters`;
  // NUL and other control characters have no place in a path or a name.
  if ([...spec].some((char) => char.charCodeAt(0) < 0x20)) return 'must not contain control characters';
  if (spec.startsWith('/') || spec.startsWith('./') || spec.startsWith('../')) return null;
  if (BARE_PACKAGE.test(spec)) return null;
  return 'must be an absolute path, a ./relative path or an installed package name (no URL or scheme)';
}

/** The connectors configuration chooses. */
export type ConnectorSlot = 'cardProcessor' | 'payoutNetwork' | 'kyc' | 'fx' | 'achNetwork';

/** The ACH network choice that takes no check payments (checks are then refused): production's default without a real ACH network. */
export const NO_ACH_NETWORK = 'none';

/** How an operator reads each slot in a message. */
export const CONNECTOR_SLOT_LABELS: Readonly<Record<ConnectorSlot, string>> = {
  cardProcessor: 'card processor',
  payoutNetwork: 'payout network',
  kyc: 'KYC provider',
  fx: 'FX provider',
  achNetwork: 'ACH network',
};

/**
 * Connectors Payrail ships, chosen by name instead of a module
 * (behaviour.md section 18). `planned` names are the ones a coming version
 * ships: reserved now, so a package of that name is never imported under
 * them and upgrading never changes what a configured name loads.
 */
export const BUILT_IN_CONNECTORS: Readonly<Record<ConnectorSlot, { readonly shipped: readonly string[]; readonly planned: readonly string[] }>> = {
  cardProcessor: { shipped: ['authorize-net'], planned: [] },
  payoutNetwork: { shipped: ['mtn-momo', 'pawapay'], planned: [] },
  kyc: { shipped: ['veriff'], planned: [] },
  fx: { shipped: ['openexchangerates'], planned: [] },
  achNetwork: { shipped: ['authorize-net'], planned: [] },
};

/** Whether `spec` chooses a connector Payrail ships for this slot (not a module to import). */
export function isBuiltInConnector(slot: ConnectorSlot, spec: string): boolean {
  return BUILT_IN_CONNECTORS[slot].shipped.includes(spec);
}

/**
 * The problem with choosing `spec` for a slot, or null: `sandbox`, a
 * built-in name of this slot, or a loadable module. A built-in name is never
 * imported as a module, in any slot (a package named `authorize-net` is
 * loaded by its path, ./node_modules/authorize-net/...).
 */
export function connectorChoiceProblem(slot: ConnectorSlot, spec: string): string | null {
  if (spec === 'sandbox' || isBuiltInConnector(slot, spec)) return null;
  if (slot === 'achNetwork' && spec === NO_ACH_NETWORK) return null;
  if (BUILT_IN_CONNECTORS[slot].planned.includes(spec)) {
    return `names a built-in ${CONNECTOR_SLOT_LABELS[slot]} this version of Payrail does not ship yet; name a connector module meanwhile`;
  }
  for (const [other, names] of Object.entries(BUILT_IN_CONNECTORS) as Array<[ConnectorSlot, (typeof BUILT_IN_CONNECTORS)[ConnectorSlot]]>) {
    if (names.shipped.includes(spec) || names.planned.includes(spec)) {
      return `names Payrail's built-in ${CONNECTOR_SLOT_LABELS[other]}, which is no ${CONNECTOR_SLOT_LABELS[slot]} (a module of that name is loaded by its path)`;
    }
  }
  return connectorSpecProblem(spec);
}
