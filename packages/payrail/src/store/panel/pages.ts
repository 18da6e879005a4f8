// One page of a panel list read in one go: up to a page and one rows in the
// list's order (the extra row is dropped: only the counts decide what is
// newer and older), with the count of all matching rows and of those newer
// than its first.
import type { Tx } from '../db.ts';

/**
 * A page of a list, newest first: the cursors of the newer and older pages
 * when there are such, how many rows match the filters, and how many of those
 * come before this page (it shows rows offset+1 to offset+rows.length).
 */
export interface ListPage<T> {
  readonly rows: T[];
  readonly newerAfter: number | null;
  readonly nextBefore: number | null;
  readonly total: number;
  readonly offset: number;
}

/** The statements of one list: its rows (up to `limit`, from the page's cursor) and its counts (newer than a pk, or all). */
export interface PagedList<T> {
  readonly read: (tx: Tx, limit: number) => Promise<T[]>;
  readonly count: (tx: Tx, newerThanPk: number | null) => Promise<number>;
}

export async function readPage<T extends { pk: number }>(tx: Tx, list: PagedList<T>, goingNewer: boolean, pageSize: number): Promise<ListPage<T>> {
  const all = await list.read(tx, pageSize + 1);
  // Going newer, the rows come back newest first but the extra one is the newest.
  const rows = goingNewer ? all.slice(Math.max(0, all.length - pageSize)) : all.slice(0, pageSize);
  const total = await list.count(tx, null);
  const offset = rows.length === 0 ? 0 : await list.count(tx, Number(rows[0]!.pk));
  return {
    rows,
    total,
    offset,
    newerAfter: offset > 0 ? Number(rows[0]!.pk) : null,
    nextBefore: rows.length > 0 && offset + rows.length < total ? Number(rows[rows.length - 1]!.pk) : null,
  };
}
