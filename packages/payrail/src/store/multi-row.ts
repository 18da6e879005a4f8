// Multi-row INSERT for batches (the transfer worker records up to a few
// hundred rows per table per transaction). One statement per chunk instead of
// one per row saves the per-statement cost (a round trip on PostgreSQL, a
// step through the VM and the driver on SQLite). The chunk sizes are fixed so
// that a table gets at most CHUNK_ROWS.length distinct statement texts: both
// adapters prepare and cache a statement per text.
import type { SqlValue, Tx } from './db.ts';

/** Rows per statement, largest first; every count is a sum of these. 64 rows of 8 columns stay far below both engines' parameter limits. */
const CHUNK_ROWS = [64, 16, 4, 1] as const;

const texts = new Map<string, string>();

/** `head VALUES tuple, tuple, ...` for `rows` rows; one text per (head, tuple, rows), kept. */
export function multiRowText(head: string, tuple: string, rows: number): string {
  const key = `${rows}|${head}|${tuple}`;
  let text = texts.get(key);
  if (text === undefined) {
    text = `${head} VALUES ${Array.from({ length: rows }, () => tuple).join(', ')}`;
    texts.set(key, text);
  }
  return text;
}

/** How a batch of `count` rows is cut into statements: sizes from CHUNK_ROWS, largest first. */
export function chunkSizes(count: number): number[] {
  const sizes: number[] = [];
  let left = count;
  for (const size of CHUNK_ROWS) {
    while (left >= size) {
      sizes.push(size);
      left -= size;
    }
  }
  return sizes;
}

/**
 * Inserts `rows` (each `columns` values long) in their order, which is also
 * the order of the keys the database gives them. `head` is the statement up
 * to VALUES: `INSERT INTO t (a, b)`; it is always a literal of the store.
 * `tuple` is one row's VALUES item, by default `(?, ?, ...)`; a literal of
 * the store too, with exactly `columns` parameters (it may hold constants,
 * as the events' fanned_out, or compute a column from them).
 */
export async function insertRows(
  tx: Tx,
  head: string,
  columns: number,
  rows: ReadonlyArray<readonly SqlValue[]>,
  tuple = `(${Array.from({ length: columns }, () => '?').join(', ')})`,
): Promise<void> {
  // Sent together: PostgreSQL pipelines them and runs them in this order, so the keys still follow the rows.
  await Promise.all(rowChunks(columns, rows, tuple).map((chunk) => tx.run(multiRowText(head, tuple, chunk.size), chunk.params)));
}

/** The rows cut as chunkSizes() says, each chunk's values in one list; every row checked to have `columns` values. */
export function rowChunks(columns: number, rows: ReadonlyArray<readonly SqlValue[]>, tuple: string): Array<{ size: number; params: SqlValue[] }> {
  if (tuple.split('?').length - 1 !== columns) throw new Error(`insertRows: the row ${tuple} does not take ${columns} values`);
  const chunks: Array<{ size: number; params: SqlValue[] }> = [];
  let start = 0;
  for (const size of chunkSizes(rows.length)) {
    const params: SqlValue[] = [];
    for (let i = start; i < start + size; i++) {
      const row = rows[i]!;
      if (row.length !== columns) throw new Error(`insertRows: a row has ${row.length} values, expected ${columns}`);
      params.push(...row);
    }
    chunks.push({ size, params });
    start += size;
  }
  return chunks;
}
