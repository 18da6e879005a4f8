// LIMIT counts written into the statement text on SQLite.
//
// SQLite's planner reads the value bound to a LIMIT placeholder (3.47 and
// later: sqlite3ExprIsInteger with the statement's parser), and so marks the
// statement to be prepared again whenever that parameter is bound anew. The
// driver binds every parameter on every run, so each run of a statement with
// `LIMIT ?` parsed and planned it again: counted under callgrind, 290
// thousand instructions per run of the worker's claim statements, 14% of all
// the instructions of a tokenize + charge load (a micro-measure: 18.6 us per
// run of a small ORDER BY ... LIMIT ? query, 7.0 us with the count written
// in). The adapter writes a bound count into the text instead: one statement
// per distinct count, each prepared once. Counts come from the code (batch
// sizes) or from a validated page size, so few texts result. OFFSET does not
// take part in planning and stays bound. PostgreSQL plans a bound LIMIT
// without re-preparing anything: this is the SQLite adapter's alone.
import type { SqlValue } from './db.ts';

/** A statement's text cut at its LIMIT placeholders. */
interface LimitTemplate {
  /** The text around the LIMIT placeholders: one more part than there are slots. */
  readonly parts: readonly string[];
  /** Position in the parameter list of each LIMIT placeholder, ascending. */
  readonly slots: readonly number[];
}

/** Parsed texts by statement, shared by every connection of the process; bounded, past it the cache starts again empty. */
const TEMPLATES_MAX = 2_000;
const templates = new Map<string, LimitTemplate | null>();

const ENDS_WITH_LIMIT = /\bLIMIT\s+$/i;

/** Cuts `sql` at each `?` that is a LIMIT count; null when it has none. Every `?` of our SQL is a placeholder. */
function parse(sql: string): LimitTemplate | null {
  const parts: string[] = [];
  const slots: number[] = [];
  let partStart = 0;
  let placeholder = 0;
  for (let i = sql.indexOf('?'); i !== -1; i = sql.indexOf('?', i + 1)) {
    if (ENDS_WITH_LIMIT.test(sql.slice(partStart, i))) {
      parts.push(sql.slice(partStart, i));
      slots.push(placeholder);
      partStart = i + 1;
    }
    placeholder += 1;
  }
  if (slots.length === 0) return null;
  parts.push(sql.slice(partStart));
  return { parts, slots };
}

function templateOf(sql: string): LimitTemplate | null {
  let template = templates.get(sql);
  if (template === undefined) {
    template = parse(sql);
    if (templates.size >= TEMPLATES_MAX) templates.clear();
    templates.set(sql, template);
  }
  return template;
}

/**
 * The statement to prepare and the parameters to bind for `sql` run with
 * `params`: LIMIT counts that are plain non-negative integers are written
 * into the text; anything else (a count of another type, a parameter list
 * too short) stays bound for SQLite to judge as before. Null when nothing
 * changes.
 */
export function writeLimits(sql: string, params: readonly SqlValue[]): { sql: string; params: SqlValue[] } | null {
  const template = templateOf(sql);
  if (template === null || params.length <= template.slots.at(-1)!) return null;
  const { parts, slots } = template;
  let text = parts[0]!;
  const bound: SqlValue[] = [];
  let slot = 0;
  for (let i = 0; i < params.length; i++) {
    const value = params[i]!;
    if (i !== slots[slot]) {
      bound.push(value);
      continue;
    }
    slot += 1;
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) {
      text += `${value}${parts[slot]}`;
    } else {
      text += `?${parts[slot]}`;
      bound.push(value);
    }
  }
  return { sql: text, params: bound };
}
