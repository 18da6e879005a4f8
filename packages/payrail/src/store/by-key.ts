// Statements that find one row by its primary key and check more about it
// (its merchant, its stage, its status) write those checks as one condition:
//
//   WHERE pk = ? AND (merchant_id = ? AND stage = 'settled') IS TRUE
//
// Why: PostgreSQL picks an index from its table statistics, and written as
// plain ANDs, the checks can match another index of the table, such as
// charges (merchant_id, stage). While the statistics are stale or missing
// (a table growing from empty, a batch close that just settled thousands of
// charges), that index looks as selective as the key and was chosen: a
// capture's update of one charge then read every authorized charge of the
// merchant, 2.6 ms instead of 0.04 ms, measured with 4,851 of them. One
// `(...) IS TRUE` is no index's condition, so only the key can serve the
// statement, whatever the statistics say. SQLite looks a row up by its
// integer key first anyway; the form changes nothing there.

/** `keyColumn = ? AND (conditions) IS TRUE`: the key's parameter first, then the conditions'. */
export function byKey(keyColumn: string, conditions: string): string {
  return `${keyColumn} = ? AND (${conditions}) IS TRUE`;
}
