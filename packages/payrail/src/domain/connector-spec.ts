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
