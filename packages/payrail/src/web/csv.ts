// CSV for the panel's exports (RFC 4180): fields separated by commas, lines
// ended by CRLF, a field quoted when it holds a comma, quote or line break,
// with its quotes doubled. A spreadsheet runs a cell starting with = + - @
// (or a tab or carriage return) as a formula, and data such as a receiver
// phone or a billing name comes from API callers, so such a cell is prefixed
// with ' to be read as text.

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvField(value: string | number | null): string {
  const text = value === null ? '' : String(value);
  const safe = FORMULA_START.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** A whole file: the header row, then the rows, then a line saying the list was cut when it was (`cutAt` rows). */
export function csvDocument(header: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number | null>>, cutAt: number | null): string {
  const lines = [header, ...rows].map((row) => row.map(csvField).join(','));
  if (cutAt !== null) lines.push(csvField(`Export cut at ${cutAt} rows: narrow the filters to export the rest.`));
  return `${lines.join('\r\n')}\r\n`;
}
