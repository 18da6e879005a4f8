// The configuration crosses to the worker thread of `payrail serve` by
// structured clone, which keeps plain data only: a Secret box arrives as an
// empty object. So its secrets travel unboxed in a marked wrapper and are
// boxed again on arrival, before any code of the thread sees them.
import { Secret } from '../domain/secret.ts';

const MARK = 'payrailSecretForThread';

/** `value` with every Secret replaced by a plain wrapper structured clone keeps. */
export function secretsUnboxedForThread<T>(value: T): T {
  return walk(value, (item) => (item instanceof Secret ? { [MARK]: item.reveal() } : undefined)) as T;
}

/** What secretsUnboxedForThread sent, with its secrets boxed again. */
export function secretsBoxedFromThread<T>(value: T): T {
  return walk(value, (item) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return undefined;
    const keys = Object.keys(item);
    return keys.length === 1 && keys[0] === MARK ? new Secret((item as Record<string, unknown>)[MARK]) : undefined;
  }) as T;
}

/** Copies plain data, letting `replace` answer for any item (undefined: copy it as it is). */
function walk(value: unknown, replace: (item: unknown) => unknown): unknown {
  const replaced = replace(value);
  if (replaced !== undefined) return replaced;
  if (Array.isArray(value)) return value.map((item) => walk(item, replace));
  if (value !== null && typeof value === 'object' && !(value instanceof Secret)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item, replace)]));
  }
  return value;
}
