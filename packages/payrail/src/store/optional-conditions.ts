// WHERE clauses of list filters: each condition applies only when its
// value is given (null or undefined: no condition), its value a parameter.

export type OptionalCondition = readonly [sql: string, value: string | number | null | undefined];

/** Adds to `where` and `params` each condition whose value is given. */
export function addGivenConditions(where: string[], params: Array<string | number>, conditions: readonly OptionalCondition[]): void {
  for (const [sql, value] of conditions) {
    if (value === null || value === undefined) continue;
    where.push(sql);
    params.push(value);
  }
}
