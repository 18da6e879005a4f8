// Row objects of SQLite statements, built in JavaScript.
//
// better-sqlite3 builds each row object itself, one property at a time
// through V8's C++ API: every column name is looked up in V8's string table
// and every property goes through the runtime's slow path. Counted under
// callgrind, that made a status read's one row cost 2.4 times what SQLite
// spent executing the statement (9% of the whole request). The adapter asks
// for rows as arrays (raw mode, one element store per column) and turns them
// into objects with a function made once per statement from its column
// names: one object literal, so every row of a statement has the same shape
// from its first property on, as code reading rows wants.

/** Turns one raw row (values in column order) into the row object better-sqlite3 would have built. */
export type RowBuilder = (values: readonly unknown[]) => Record<string, unknown>;

/**
 * Column names that an object literal would not store as a plain property
 * (`__proto__` sets the prototype). Rows of such statements stay as
 * better-sqlite3 builds them.
 */
const LITERAL_UNSAFE = new Set(['__proto__']);

/**
 * Builders by column list, shared by every connection and statement of the
 * process: the reader's, the writer's and each snapshot's statements of one
 * query get the same function (made once, with one row shape). Bounded: past
 * it the cache starts again empty.
 */
const BUILDERS_MAX = 2_000;
const builders = new Map<string, RowBuilder>();

/**
 * The builder for a statement with these result columns, or null when the
 * statement must keep better-sqlite3's own rows. Duplicate names keep the
 * last column's value, as better-sqlite3's rows do.
 */
export function rowBuilder(columnNames: readonly string[]): RowBuilder | null {
  if (columnNames.some((name) => LITERAL_UNSAFE.has(name))) return null;
  // JSON quoting: a key of the cache that no two different lists share.
  const key = JSON.stringify(columnNames);
  let build = builders.get(key);
  if (build === undefined) {
    // The names come from SQLite's description of our own statements; JSON.stringify quotes each as a literal key.
    const fields = columnNames.map((name, i) => `${JSON.stringify(name)}: values[${i}]`).join(', ');
    build = new Function('values', `return { ${fields} };`) as RowBuilder;
    if (builders.size >= BUILDERS_MAX) builders.clear();
    builders.set(key, build);
  }
  return build;
}
