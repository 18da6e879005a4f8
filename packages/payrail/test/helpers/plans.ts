// Reading PostgreSQL's JSON plans (EXPLAIN (FORMAT JSON)) in tests.

/** Every index a plan scans, by name. */
export function indexesOf(plan: unknown): string[] {
  if (typeof plan !== 'object' || plan === null) return [];
  const node = plan as Record<string, unknown>;
  const own = typeof node['Index Name'] === 'string' ? [node['Index Name'] as string] : [];
  return [...own, ...Object.values(node).flatMap((value) => (Array.isArray(value) ? value.flatMap(indexesOf) : indexesOf(value)))];
}
